"""The kernel's checkpoints of the agent's work (issue 20): the engine-neutral store (files,
conversation) with the kernel's own parts (the variables around ExecuteCode calls; the
live notebook's edits), and what ``%agent rewind`` and the run card's button call.

Settings (``AgentMagics``): ``checkpoints`` (on/off), ``checkpoint_memory`` (the namespace
copies' budget), ``checkpoint_max_file_size``, ``checkpoint_max_files``; the shadow
repositories are in ``~/.nb_agent/checkpoints`` (``$NB_AGENT_CHECKPOINTS_DIR``).
"""

from __future__ import annotations

import asyncio
import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nb_agent.checkpoints.namespace import NamespaceTracker, apply_plan, apply_redo, plan_rewind
from nb_agent.checkpoints.parts import PartOutcome, PartPlan
from nb_agent.checkpoints.store import Checkpoint, CheckpointSettings, CheckpointStore, RunRecord
from nb_agent.errors import NbAgentError
from nb_agent.jupyter.user_namespace import user_variables
from nb_agent.state_dir import checkpoints_dir

if TYPE_CHECKING:
    from nb_agent.checkpoints.rewinding import RewindPlan, RewindReport

log = logging.getLogger(__name__)

MAX_NAMES = 4
NO_ENGINE = (
    "Nothing to rewind: no %%agent run in this kernel yet. After a kernel restart, %agent resume [ID] "
    "continues a saved conversation; its files and conversation can then be rewound (not its variables: "
    "they went with the old kernel)."
)
"""What a rewind says before any run of this kernel (and after a restart)."""


def namespace_tracker(settings: Any) -> NamespaceTracker:
    """A :class:`NamespaceTracker` whose budget follows ``AgentMagics.checkpoint_memory``."""
    return NamespaceTracker(budget=lambda: getattr(settings, "checkpoint_memory", 0) or None)


class NamespacePart:
    """The user's variables: marks are call numbers of the :class:`NamespaceTracker`."""

    name = "variables"

    def __init__(self, *, tracker: NamespaceTracker, shell: Any) -> None:
        self.tracker, self.shell = tracker, shell

    def mark(self) -> tuple[int, int]:
        return (self.tracker.next_number, self.tracker.run)

    def run_started(self, run: int) -> None:
        self.tracker.start_run(run, user_variables(self.shell))

    def run_ended(self) -> None:
        self.tracker.end_run(user_variables(self.shell))

    def summary(self, since: Any, until: Any | None) -> str | None:
        names: list[str] = []
        for record in self.tracker.records:
            if record.number >= since[0] and (until is None or record.number < until[0]) and not record.rewound:
                names += [n for n in record.changes if n not in names]
        if not names:
            return None
        more = f" (+{len(names) - MAX_NAMES})" if len(names) > MAX_NAMES else ""
        return "variables: " + ", ".join(names[:MAX_NAMES]) + more

    def plan(self, since: Any, run: int) -> PartPlan:
        plan = plan_rewind(self.tracker, since=since[0], run=run, now=dict(user_variables(self.shell)))
        return PartPlan(
            part=self.name, data=plan,
            changes=[line for line in plan.preview() if not line.startswith(("kept: ", "not restorable: "))],
            kept=[f"{n} — {why}" for n, why in plan.kept.items()], not_restorable=[f"{n} — {why}" for n, why in plan.lost.items()],
        )  # fmt: skip

    def apply(self, plan: PartPlan) -> PartOutcome:
        done = apply_plan(self.tracker, plan.data, self.shell.user_ns)
        return PartOutcome(part=self.name, restored=done.restored, kept=done.kept, not_restored=done.not_restored, redo=(done, plan.data.records))

    async def settle(self, outcome: PartOutcome) -> None:
        return None

    def redo(self, outcome: PartOutcome) -> PartOutcome:
        done, records = outcome.redo
        again = apply_redo(self.tracker, done.redo, done.left, records, self.shell.user_ns)
        return PartOutcome(part=self.name, restored=again.restored, kept=again.kept, not_restored=again.not_restored)

    def reset(self) -> None:
        self.tracker.forget()

    def files(self) -> dict[str, str]:
        return {}


def checkpoint_settings(settings: Any) -> CheckpointSettings:
    return CheckpointSettings(
        enabled=lambda: bool(getattr(settings, "checkpoints", True)),
        root=checkpoints_dir,
        max_file_size=lambda: int(getattr(settings, "checkpoint_max_file_size", 0)) or 50 * 1024 * 1024,
        max_files=lambda: int(getattr(settings, "checkpoint_max_files", 0)) or 50_000,
    )


class KernelCheckpoints:
    """Per kernel: the tracker the kernel tools use, the store every engine of the kernel
    checkpoints into, and rewinding."""

    def __init__(self, *, shell: Any, settings: Any, after_rewind: Any = None) -> None:
        self.tracker = namespace_tracker(settings)
        self.parts: list[Any] = [NamespacePart(tracker=self.tracker, shell=shell)]
        self.store = CheckpointStore(settings=checkpoint_settings(settings), parts=self.parts)
        self.after_rewind = after_rewind
        """Called after a rewind or a redo (the between-run notes take the new state as the agent's)."""
        self.skip: dict[str, str] = {}
        """Absolute paths files rewinds leave alone, with why (besides what the parts say)."""
        self.rewinding = False
        """A run card's rewind is under way (a cell started meanwhile waits for it)."""
        self._tasks: set[asyncio.Task[None]] = set()

    def agent_names(self) -> set[str]:
        """The variables whose value the agent's ExecuteCode left (this run's calls, and what
        earlier runs left that the user has not changed since, as of the last run's start)."""
        tracker = self.tracker
        current = {name for record in tracker.records if record.run == tracker.run and not record.rewound for name in record.changes}
        return set(tracker.expected) | current

    def add_part(self, part: Any) -> None:
        self.parts.append(part)
        self.store.parts = self.parts

    async def plan(self, engine: Any, target: str | None, *, code: bool, conversation: bool) -> RewindPlan:
        from nb_agent.checkpoints.rewinding import choose
        from nb_agent.checkpoints.rewinding import plan_rewind as plan_store

        checkpoint = choose(self.store, target, code=code, conversation=conversation)
        skip = dict(self.skip)
        for part in self.parts:
            skip.update(part.files())
        return await plan_store(self.store, engine, checkpoint, code=code, conversation=conversation, skip=skip)

    async def rewind(self, engine: Any, plan: RewindPlan) -> RewindReport:
        from nb_agent.checkpoints.rewinding import apply_rewind

        report = await apply_rewind(self.store, engine, plan)
        self._settled()
        return report

    async def redo(self, engine: Any) -> RewindReport:
        from nb_agent.checkpoints.rewinding import apply_redo

        report = await apply_redo(self.store, engine)
        self._settled()
        return report

    def _settled(self) -> None:
        if self.after_rewind is not None:
            self.after_rewind()

    # --- the run card -------------------------------------------------------------------------------
    def run_card(self, engine: Any) -> dict[str, Any] | None:
        """The card of the run that just ended (``None``: no checkpoint, or nothing changed)."""
        from nb_agent.jupyter.rewind_card import rewind_bundle

        runs = self.store.runs
        if engine is None or not runs or self.store.current is not None or not runs[-1].checkpoints:
            return None
        run = runs[-1]
        start = run.checkpoints[0]
        if start.code_rewound:
            return None
        changes = changes_between(self.store, run, start, None)
        return rewind_bundle(checkpoint_id=start.id, prompt=start.prompt, changes=changes) if changes else None

    def show_run_card(self, engine: Any) -> dict[str, Any] | None:
        """Show the run's card below its cell; returns it (``None``: no card)."""
        try:
            card = self.run_card(engine)
        except Exception:
            log.warning("the run card failed", exc_info=True)
            return None
        if card is not None:
            from IPython.display import display

            display(card, raw=True)
        return card

    def show_file_edits(self, engine: Any, paths: set[str], *, widgets: bool) -> dict[str, Any] | None:
        """Below the run that just ended: the card of the files among ``paths`` (those its
        Edit, Write and NotebookEdit calls named) it changed, with Undo and Keep; returns it.
        The live notebook's own file is left out (its edits card covers it)."""
        runs = self.store.runs
        if engine is None or not paths or not runs or self.store.current is not None:
            return None
        from nb_agent.checkpoints.file_edits import run_file_edits
        from nb_agent.jupyter.view.file_edits_card import show_file_edits

        skip = set(self.skip)
        for part in self.parts:
            skip.update(part.files())
        try:
            edits = run_file_edits(self.store, runs[-1], {p for p in paths if os.path.realpath(p) not in skip})
            return show_file_edits(edits, widgets=widgets)
        except Exception:
            log.warning("the file edits card failed", exc_info=True)
            return None

    # --- the run card's button -------------------------------------------------------------------
    def answer_page(self, channel: Any, message: Any, *, engine: Any, running: bool) -> None:
        """A run card asks for a preview or a rewind: answered by a task on the kernel's loop
        (the page's revert, when there is one, is awaited there)."""
        task = asyncio.get_running_loop().create_task(self._answer(channel, message, engine=engine, running=running))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _other_run(self, message: Any) -> str | None:
        """Why the card's run is not this conversation's checkpoint of that id (a card of
        another conversation, or of a session not resumed here), or ``None``."""
        found = next((c for c in self.store.checkpoints() if c.id == message.checkpoint_id), None)
        if found is not None and found.prompt == message.prompt:
            return None
        return (
            f"This card's run (\"{message.prompt}\") is not checkpoint {message.checkpoint_id} of this kernel's conversation: "
            "it belongs to another one (%agent sessions lists them; %agent resume ID, then %agent rewind). "
            "%agent checkpoints lists this conversation's runs."
        )

    async def _answer(self, channel: Any, message: Any, *, engine: Any, running: bool) -> None:
        from nb_agent.jupyter.live.protocol import RewindReply

        reply = RewindReply(request_id=message.request_id, action=message.action)
        if engine is None:
            reply.error = NO_ENGINE
        elif running or self.rewinding:
            reply.error = "An agent run (or another rewind) is active in this kernel; rewind when it has ended."
        elif (mismatch := self._other_run(message)) is not None:
            reply.error = mismatch
        else:
            self.rewinding = True
            try:
                plan = await self.plan(engine, message.checkpoint_id, code=True, conversation=True)
                reply.lines = plan.preview() if message.action == "preview" else (await self.rewind(engine, plan)).lines()
            except NbAgentError as exc:
                reply.error = str(exc)
            except Exception as exc:
                log.warning("rewind from the run card failed", exc_info=True)
                reply.error = f"{type(exc).__name__}: {exc}"
            finally:
                self.rewinding = False
        channel.send(reply.model_dump(mode="json"))


def changes_between(store: CheckpointStore, run: RunRecord, checkpoint: Checkpoint, following: Checkpoint | None) -> list[str]:
    """What the agent changed from ``checkpoint`` to ``following`` (``None``: the run's end),
    in a few words per part: ``files: 3``, ``variables: sales, model``, ``notebook: 2 edits``."""
    parts: list[str] = []
    changed = 0
    for folder, start in checkpoint.files.items():
        end = following.files.get(folder) if following is not None else run.end_files.get(folder)
        if end is not None:
            try:
                changed += len(store.repo(Path(folder)).changed(start, end))
            except Exception:  # noqa: BLE001 - a snapshot gone from the shadow repository: not counted
                continue
    if changed:
        parts.append(f"files: {changed}")
    for part in store.parts:
        since = checkpoint.marks.get(part.name) if checkpoint.marks is not None else None
        if following is not None:
            until = following.marks.get(part.name) if following.marks is not None else None
        elif run is not store.runs[-1]:
            until = run.end_marks.get(part.name) if run.end_marks else None
        else:  # the last run: what came after its end (the agent's code added as cells) is its too
            until = None
        if since is not None and (summary := part.summary(since, until)):
            parts.append(summary)
    return parts
