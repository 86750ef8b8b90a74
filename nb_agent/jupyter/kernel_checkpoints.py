"""The kernel's checkpoints of the agent's work (issue 20): the engine-neutral store (files,
conversation) with the kernel's own parts (the variables around ExecuteCode calls; the
live notebook's edits), and what ``%agent rewind`` and the run card's button call.

Settings (``AgentMagics``): ``checkpoints`` (on/off), ``checkpoint_memory`` (the namespace
copies' budget), ``checkpoint_max_file_size``, ``checkpoint_max_files``; the shadow
repositories are in ``~/.nb_agent/checkpoints`` (``$NB_AGENT_CHECKPOINTS_DIR``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from nb_agent.checkpoints.namespace import NamespaceTracker, apply_plan, apply_redo, plan_rewind
from nb_agent.checkpoints.parts import PartOutcome, PartPlan
from nb_agent.checkpoints.store import CheckpointSettings, CheckpointStore
from nb_agent.jupyter.tools.inspect_variables import user_variables
from nb_agent.state_dir import checkpoints_dir

if TYPE_CHECKING:
    from nb_agent.checkpoints.rewinding import RewindPlan, RewindReport

MAX_NAMES = 4


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
        """Absolute paths files rewinds leave alone, with why (the live notebook's file)."""

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
        from nb_agent.checkpoints.rewinding import choose, plan_rewind as plan_store

        checkpoint = choose(self.store, target, code=code, conversation=conversation)
        return await plan_store(self.store, engine, checkpoint, code=code, conversation=conversation, skip=self.skip)

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
