"""``%agent rewind``: going back to a checkpoint, and redoing it.

A rewind is planned first (nothing changes; the plan's preview is what a confirmation
shows), then applied: the files, the kernel's parts (variables, notebook edits), then the
conversation. Whatever the user changed after the agent is left as it is and named. What
the rewind replaced is kept for a redo, until the next run.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nb_agent.checkpoints.file_rewind import CHANGE_LINES, FolderPlan, Segment, apply_folder, plan_folder, redo_folder
from nb_agent.checkpoints.parts import CheckpointPart, PartOutcome, PartPlan
from nb_agent.checkpoints.store import CHECKPOINT_REWIND_KIND, Checkpoint, CheckpointStore
from nb_agent.errors import CheckpointError
from nb_agent.messages import AttachmentMessage

KERNEL_GONE = "this checkpoint was made in another kernel (before a restart, or a resumed session): only files and the conversation can be rewound"


@dataclass(kw_only=True)
class RewindPlan:
    checkpoint: Checkpoint
    code: bool
    conversation: bool
    files: PartPlan
    folders: list[FolderPlan] = field(default_factory=list)
    parts: list[tuple[CheckpointPart, PartPlan]] = field(default_factory=list)
    messages: int = 0
    """How many messages leave the conversation."""
    notes: list[str] = field(default_factory=list)

    @property
    def title(self) -> str:
        return describe_checkpoint(self.checkpoint)

    @property
    def plans(self) -> list[PartPlan]:
        return [self.files, *(plan for _, plan in self.parts)]

    @property
    def empty(self) -> bool:
        return all(plan.empty for plan in self.plans) and not self.messages

    def preview(self) -> list[str]:
        """What will change, for a confirmation: a few lines per part."""
        lines: list[str] = []
        for plan in self.plans:
            shown = plan.changes[:CHANGE_LINES]
            lines += [f"{plan.part}: {line}" for line in shown]
            if len(plan.changes) > len(shown):
                lines.append(f"{plan.part}: … and {len(plan.changes) - len(shown)} more")
            lines += [f"kept: {line}" for line in plan.kept] + [f"not restorable: {line}" for line in plan.not_restorable]
        if self.conversation:
            lines.append(f"conversation: back to before {self.title} ({self.messages} message(s) leave it; the transcript keeps them)")
        return lines + self.notes


def describe_checkpoint(checkpoint: Checkpoint) -> str:
    where = f"run {checkpoint.run}" if checkpoint.turn == 1 else f"turn {checkpoint.turn} of run {checkpoint.run}"
    return where + (f' ("{checkpoint.prompt}")' if checkpoint.prompt else "")


@dataclass(kw_only=True)
class RewindReport:
    heading: str
    outcomes: list[PartOutcome] = field(default_factory=list)
    conversation: str | None = None
    notes: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        lines = [self.heading]
        for outcome in self.outcomes:
            if outcome.restored:
                shown = outcome.restored[:CHANGE_LINES]
                more = f" (+{len(outcome.restored) - len(shown)} more)" if len(outcome.restored) > len(shown) else ""
                lines.append(f"{outcome.part}: " + "; ".join(shown) + more)
            lines += [f"kept: {line}" for line in outcome.kept] + [f"not restored: {line}" for line in outcome.not_restored]
        if self.conversation:
            lines.append(self.conversation)
        return lines + self.notes


@dataclass(kw_only=True)
class Redo:
    plan: RewindPlan
    outcomes: list[tuple[CheckpointPart | None, PartOutcome]]
    folders: list[tuple[FolderPlan, dict[str, Any]]]
    removed: list[Any]
    ids: list[str]


def choose(store: CheckpointStore, target: str | None, *, code: bool, conversation: bool) -> Checkpoint:
    """The checkpoint to go back to: ``target``, or the start of the last run not rewound yet."""
    every = store.checkpoints()
    if not every:
        raise CheckpointError("Nothing to rewind: no %%agent run has a checkpoint in this conversation yet.")

    def open_(c: Checkpoint) -> bool:
        return (code and not c.code_rewound) or (conversation and not c.conversation_rewound)

    if target is None:
        starts = [c for c in every if c.turn == 1 and open_(c)]
        if not starts:
            raise CheckpointError("Nothing to rewind: every run of this conversation is rewound already (%agent rewind --redo undoes the last rewind).")
        return starts[-1]
    found = next((c for c in every if c.id == target.strip()), None)
    if found is None:
        raise CheckpointError(f"No checkpoint {target!r} in this conversation; %agent rewind --list shows them ({', '.join(c.id for c in every[-12:])}).")
    if not open_(found):
        raise CheckpointError(f"Checkpoint {found.id} is rewound already; %agent rewind --redo undoes the last rewind.")
    return found


async def plan_rewind(store: CheckpointStore, engine: Any, checkpoint: Checkpoint, *, code: bool, conversation: bool, skip: dict[str, str] | None = None) -> RewindPlan:
    """What going back to ``checkpoint`` would do. ``skip``: absolute paths left alone, with why."""
    plan = RewindPlan(checkpoint=checkpoint, code=code, conversation=conversation, files=PartPlan(part="files"))
    if code:
        await asyncio.to_thread(_plan_files, store, engine, plan, skip or {})
        for part in store.parts:
            mark = checkpoint.marks.get(part.name) if checkpoint.marks is not None else None
            if mark is None:
                continue
            plan.parts.append((part, part.plan(mark, checkpoint.run)))
        if checkpoint.marks is None:
            plan.notes.append(f"variables and notebook edits: not restorable ({KERNEL_GONE})")
    if conversation:
        uuids = [m.uuid for m in engine.messages]
        keep = 0 if checkpoint.message_uuid is None else (uuids.index(checkpoint.message_uuid) + 1 if checkpoint.message_uuid in uuids else len(uuids))
        plan.messages = len(uuids) - keep
    return plan


def _plan_files(store: CheckpointStore, engine: Any, plan: RewindPlan, skip: dict[str, str]) -> None:
    checkpoint = plan.checkpoint
    now = store._snapshot_files(engine, "before a rewind")
    for folder, current in now.items():
        start = checkpoint.files.get(folder)
        repo = store.repo(Path(folder))
        if start is None or not repo.has(start):
            plan.files.not_restorable.append(f"{folder} — no file checkpoint at {checkpoint.id} ({store.files_off.get(folder, 'file checkpoints were off')})")
            continue
        segments = _segments(store, checkpoint, folder)
        relative = {str(path)[len(folder) + 1 :]: why for path, why in skip.items() if str(path).startswith(folder + "/")}
        plan.folders.append(plan_folder(repo, segments, current.commit, skip=relative, plan=plan.files, skipped_then=checkpoint.skipped.get(folder, ()), skipped_now=current.skipped))
    for folder, why in store.files_off.items():
        if folder not in now:
            plan.files.not_restorable.append(f"{folder} — {why}")


def _segments(store: CheckpointStore, checkpoint: Checkpoint, folder: str) -> list[Segment]:
    """The agent's stretches of work in ``folder`` from ``checkpoint`` on."""
    segments = []
    for run in store.runs:
        if run.number < checkpoint.run:
            continue
        start = checkpoint if run.number == checkpoint.run else run.checkpoints[0]
        if start.code_rewound and run.number != checkpoint.run or folder not in start.files:
            continue
        segments.append(Segment(start=start.files[folder], end=run.end_files.get(folder), user_paths=run.user_paths.get(folder, set())))
    return segments


async def apply_rewind(store: CheckpointStore, engine: Any, plan: RewindPlan) -> RewindReport:
    """Do it: files, the kernel's parts and the conversation, with no await in between (a
    kernel interrupt lands before them or after them, never among them), and the redo is
    kept; then wait for what a part started elsewhere (the notebook page's revert)."""
    both = plan.code and plan.conversation
    report = RewindReport(heading=f"Rewound to before {plan.title}" + ("" if both else " (code only)" if plan.code else " (conversation only)") + ":")
    redo = Redo(plan=plan, outcomes=[], folders=[], removed=[], ids=[])
    if plan.code:
        files = PartOutcome(part="files", kept=list(plan.files.kept), not_restored=list(plan.files.not_restorable))
        for folder in plan.folders:
            redo.folders.append((folder, apply_folder(folder, files)))
        report.outcomes.append(files)
        redo.outcomes.append((None, files))
        _note_kept_files(store, plan, files)
        for part, part_plan in plan.parts:
            outcome = part.apply(part_plan)
            report.outcomes.append(outcome)
            redo.outcomes.append((part, outcome))
    if plan.conversation:
        redo.removed = engine.rewind_conversation(plan.checkpoint.message_uuid)
        report.conversation = f"conversation: back to before {plan.title}; the next %%agent cell continues from there"
    redo.ids = _flag(store, plan)
    engine.transcript.write_entry(CHECKPOINT_REWIND_KIND, ids=redo.ids, code=plan.code, conversation=plan.conversation)
    store.redo = redo
    for part, outcome in redo.outcomes:
        if part is not None:
            await part.settle(outcome)
    report.notes += plan.notes
    report.notes.append("%agent rewind --redo undoes this rewind, until the next %%agent run.")
    _tell_the_model(engine, plan, report)
    return report


def _note_kept_files(store: CheckpointStore, plan: RewindPlan, files: PartOutcome) -> None:
    run = store.run_of(plan.checkpoint)
    for folder in plan.folders:
        key = str(folder.repo.folder)
        kept = {line.split(" — ")[0] for line in files.kept}
        run.user_paths.setdefault(key, set()).update(kept)
        if plan.checkpoint.turn > 1:  # the run now ends where the rewind left it
            run.end_files[key] = folder.repo.snapshot("after a rewind").commit


def _flag(store: CheckpointStore, plan: RewindPlan) -> list[str]:
    """Mark the checkpoints from the target on as rewound; returns those that were not yet."""
    target = plan.checkpoint
    ids = []
    for checkpoint in store.checkpoints():
        if (checkpoint.run, checkpoint.turn) < (target.run, target.turn):
            continue
        changed = (plan.code and not checkpoint.code_rewound) or (plan.conversation and not checkpoint.conversation_rewound)
        checkpoint.code_rewound = checkpoint.code_rewound or plan.code
        checkpoint.conversation_rewound = checkpoint.conversation_rewound or plan.conversation
        if changed:
            ids.append(checkpoint.id)
    return ids


def _unflag(store: CheckpointStore, plan: RewindPlan, ids: list[str]) -> None:
    for checkpoint in store.checkpoints():
        if checkpoint.id in ids:
            checkpoint.code_rewound = checkpoint.code_rewound and not plan.code
            checkpoint.conversation_rewound = checkpoint.conversation_rewound and not plan.conversation


def _tell_the_model(engine: Any, plan: RewindPlan, report: RewindReport) -> None:
    """With only one side rewound, the next run hears of it (with both, the model never saw
    the rewound work)."""
    if plan.code and not plan.conversation:
        body = "\n".join(report.lines()[1:-1]) or "nothing needed restoring"
        text = f"The user rewound the kernel's variables, the files and the notebook to before {plan.title}; what you did since is undone:\n{body}"
    elif plan.conversation and not plan.code:
        text = (
            f"The user rewound the conversation to before {plan.title}. The kernel's variables, the files and the "
            "notebook still hold what was done after that point: check them before relying on them."
        )
    else:
        return
    engine.pending_notifications.append(AttachmentMessage(kind="rewind", content=text))


async def apply_redo(store: CheckpointStore, engine: Any) -> RewindReport:
    redo = store.redo
    if redo is None:
        raise CheckpointError("Nothing to redo: there was no rewind since the last %%agent run.")
    store.redo = None
    report = RewindReport(heading=f"Undid the rewind to before {redo.plan.title}:")
    files = PartOutcome(part="files")
    for folder, before in redo.folders:
        redo_folder(folder.repo, folder.targets, before, files)
    if redo.folders:
        report.outcomes.append(files)
    again = [(part, part.redo(outcome)) for part, outcome in redo.outcomes if part is not None]
    for part, outcome in again:
        await part.settle(outcome)
        report.outcomes.append(outcome)
    if redo.removed:
        engine.restore_messages(redo.removed)
        report.conversation = f"conversation: {len(redo.removed)} message(s) back, as before the rewind"
    _unflag(store, redo.plan, redo.ids)
    engine.transcript.write_entry(CHECKPOINT_REWIND_KIND, ids=redo.ids, code=redo.plan.code, conversation=redo.plan.conversation, redo=True)
    engine.pending_notifications = [n for n in engine.pending_notifications if getattr(n, "kind", None) != "rewind"]
    return report
