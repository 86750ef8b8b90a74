"""``%agent rewind`` and ``%agent checkpoints``: list the checkpoints of the conversation,
go back to one (the variables, the files, the notebook's edits and the conversation, or
only the state with ``--code``, only the conversation with ``--conversation``), redo."""

from __future__ import annotations

import asyncio
import shlex
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from nb_agent.errors import NbAgentError
from nb_agent.jupyter.kernel_checkpoints import NO_ENGINE, changes_between

if TYPE_CHECKING:
    from nb_agent.checkpoints.store import Checkpoint, CheckpointStore, RunRecord
    from nb_agent.jupyter.session import KernelAgentSession

USAGE = "usage: %agent rewind [ID] [--code | --conversation]   |   %agent rewind --list   |   %agent rewind --redo"


@dataclass(frozen=True, kw_only=True)
class RewindOptions:
    target: str | None = None
    listing: bool = False
    redo: bool = False
    code: bool = True
    conversation: bool = True


def parse(arg: str | None) -> RewindOptions:
    """``[ID] [--code|--conversation] | --list | --redo``; raises ``ValueError`` with the usage."""
    try:
        words = shlex.split(arg or "")
    except ValueError as exc:
        raise ValueError(f"{exc}\n{USAGE}") from None
    flags = {w for w in words if w.startswith("-")}
    ids = [w for w in words if not w.startswith("-")]
    unknown = flags - {"--list", "-l", "--redo", "--code", "--conversation"}
    if unknown or len(ids) > 1 or ("--code" in flags and "--conversation" in flags):
        raise ValueError(USAGE)
    listing = bool(flags & {"--list", "-l"})
    redo = "--redo" in flags
    if (listing or redo) and (ids or len(flags) > 1):
        raise ValueError(USAGE)
    return RewindOptions(
        target=ids[0] if ids else None, listing=listing, redo=redo,
        code="--conversation" not in flags, conversation="--code" not in flags,
    )  # fmt: skip


async def rewind(session: KernelAgentSession, arg: str | None) -> None:
    try:
        options = parse(arg)
    except ValueError as exc:
        print(exc)
        return
    if options.listing:
        checkpoints(session)
        return
    engine = session.engine
    if engine is None:
        print(NO_ENGINE)
        return
    if session.running:
        print("An agent run is active in this kernel; rewind when it has ended.")
        return
    from nb_agent.jupyter.interrupts import uncancel_current_task

    kernel = session.checkpoints
    try:
        if options.redo:
            report = await kernel.redo(engine)
        else:
            plan = await kernel.plan(engine, options.target, code=options.code, conversation=options.conversation)
            report = await kernel.rewind(engine, plan)
    except NbAgentError as exc:
        print(exc)
        return
    except asyncio.CancelledError:
        uncancel_current_task()
        print(
            "Rewind interrupted. If it had begun, the variables, files and conversation were rewound together "
            "(they change in one step); only the notebook's revert may not be confirmed. %agent rewind --list "
            "shows where things stand."
        )
        return
    print("\n".join(report.lines()))


def checkpoints(session: KernelAgentSession, _arg: str | None = None) -> None:
    """``%agent checkpoints`` (= ``%agent rewind --list``)."""
    engine = session.engine
    store = session.checkpoints.store
    if engine is None or not store.checkpoints():
        print(NO_ENGINE if engine is None else "No checkpoints yet: each %%agent run takes one when it starts.")
        return
    print("\n".join(listing(store)))


def listing(store: CheckpointStore) -> list[str]:
    lines = ["Checkpoints of this conversation (%agent rewind ID goes back to one; %agent rewind alone, to before the last run):"]
    for run in store.runs:
        for index, checkpoint in enumerate(run.checkpoints):
            lines.append(_row(store, run, index, checkpoint))
    if any(c.marks is None for c in store.checkpoints()):
        lines.append("Checkpoints made in another kernel (before a restart, or a resumed session): files and conversation only.")
    for folder, why in store.files_off.items():
        lines.append(f"File checkpoints off for {folder}: {why}")
    if store.notices:
        lines += store.notices
    if store.redo is not None:
        from nb_agent.checkpoints.rewinding import describe_checkpoint

        lines.append(f"%agent rewind --redo undoes the rewind to before {describe_checkpoint(store.redo.plan.checkpoint)} (until the next run).")
    return lines


def _row(store: CheckpointStore, run: RunRecord, index: int, checkpoint: Checkpoint) -> str:
    when = time.strftime("%H:%M:%S", time.localtime(checkpoint.at))
    what = f'"{checkpoint.prompt}"' if checkpoint.turn == 1 else f"  turn {checkpoint.turn}"
    state = _rewound(checkpoint)
    following = run.checkpoints[index + 1] if index + 1 < len(run.checkpoints) else None
    changes = state or " · ".join(changes_between(store, run, checkpoint, following)) or "no changes"
    return f"  {checkpoint.id:<6} {when}  {what:<44} {changes}"


def _rewound(checkpoint: Checkpoint) -> str:
    if checkpoint.code_rewound and checkpoint.conversation_rewound:
        return "(rewound)"
    if checkpoint.code_rewound:
        return "(state rewound)"
    return "(conversation rewound)" if checkpoint.conversation_rewound else ""


__all__ = ["checkpoints", "listing", "parse", "rewind"]
