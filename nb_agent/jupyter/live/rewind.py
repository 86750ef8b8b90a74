"""The live notebook as a checkpoint part: a rewind reverts the agent's edits since the
checkpoint, through the page that ran them (the page checks each one against what the
user has on screen, as the edits card's revert does: a cell the user changed since is
left as it is and said); a redo applies them again.

A mark is ``(seq, edits)``: the live run under way (or the next one) and how many edits it
had made. The page applies a revert whether or not the kernel still waits for its answer.
"""

from __future__ import annotations

import asyncio
import os
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from nb_agent.checkpoints.parts import PartOutcome, PartPlan
from nb_agent.wording import plural

if TYPE_CHECKING:
    from nb_agent.jupyter.live.notebook import LiveNotebook
    from nb_agent.jupyter.live.protocol import AckError
    from nb_agent.jupyter.live.run import EditRecord, LiveRun

ANSWER_WAIT_S = 10.0
"""How long a rewind waits for the page's answer (only to report it: the page applies the
revert anyway)."""
Mark = tuple[int, int]


def refusal_reason(error: AckError) -> str:
    """Why the page left an edit as it is, in the user's words (as the edits card says it)."""
    cell = error.cell_id or "?"
    return {
        "changed": f"cell {cell} was changed after the agent's edit, so it was left as it is",
        "missing": f"cell {cell} is not in the notebook any more",
        "invalid": f"already reverted ({error.message})",
        "editing": f"you are editing cell {cell}",
        "running": f"cell {cell} is running",
    }.get(error.code, error.message)


@dataclass(kw_only=True)
class _Pending:
    run: LiveRun
    records: list[EditRecord]
    future: asyncio.Future[Any] | None = None
    """A revert's answer."""
    futures: dict[str, asyncio.Future[Any]] | None = None
    """A redo's: one acknowledgement per re-applied edit."""


class NotebookPart:
    name = "notebook"

    def __init__(self, live: LiveNotebook) -> None:
        self.live = live
        self.reverted: set[str] = set()
        """Edit ids a rewind reverted (and no redo applied again)."""

    def mark(self) -> Mark:
        current = self.live.current
        if current is not None:
            return (current.seq, len(current.edits))
        return (self.live.started + 1, 0)

    def run_started(self, run: int) -> None:
        return None

    def run_ended(self) -> None:
        return None

    def reset(self) -> None:
        self.reverted.clear()

    def files(self) -> dict[str, str]:
        """The live notebooks' files (absolute paths), which a files rewind leaves alone: the
        page holds the notebook, and its edits are rewound there."""
        reason = "the notebook open live in JupyterLab: its cells are rewound through the page, not its file"
        return {os.path.realpath(run.address.shown): reason for run in self.live.history if run.address.on_this_machine}

    def _since(self, since: Mark, until: Mark | None = None) -> list[tuple[LiveRun, list[EditRecord]]]:
        found = []
        for run in self.live.history:
            if run.seq < since[0] or (until is not None and run.seq > until[0]):
                continue
            start = since[1] if run.seq == since[0] else 0
            stop = until[1] if until is not None and run.seq == until[0] else len(run.edits)
            records = [r for r in run.edits[start:stop] if r.status != "refused" and r.edit_id not in self.reverted]
            if records:
                found.append((run, records))
        return found

    def summary(self, since: Any, until: Any | None) -> str | None:
        count = sum(len(records) for _, records in self._since(since, until))
        return f"notebook: {plural(count, 'edit')}" if count else None

    def plan(self, since: Any, run: int) -> PartPlan:
        plan = PartPlan(part=self.name, data=[])
        for live_run, records in self._since(since):
            if live_run.channel.closed:
                plan.not_restorable += [
                    f"{r.summary} — the notebook page that ran it is closed (its edits card's Revert button still works)" for r in records
                ]
                continue
            plan.data.append((live_run, records))
            plan.changes += [f"revert {r.summary}" for r in records]
        return plan

    def apply(self, plan: PartPlan) -> PartOutcome:
        from nb_agent.jupyter.live.edits_card import revert_entry
        from nb_agent.jupyter.live.protocol import RevertMessage

        outcome = PartOutcome(part=self.name, not_restored=list(plan.not_restorable), pending=[])
        for live_run, records in plan.data:
            message = RevertMessage(revert_id=uuid.uuid4().hex, run_id=live_run.run_id, edits=[revert_entry(r) for r in records])
            future = self.live.hub.start_revert(live_run.channel, message)
            outcome.pending.append(_Pending(run=live_run, records=records, future=future))
        return outcome

    async def settle(self, outcome: PartOutcome) -> None:
        reverted: list[tuple[LiveRun, list[EditRecord]]] = []
        for pending in outcome.pending or []:
            if pending.futures is not None:
                await self._settle_redo(pending, outcome)
                continue
            assert pending.future is not None
            answer = await _answer(pending.future)
            if answer is None:
                outcome.not_restored.append(f"{len(pending.records)} notebook edit(s) — the page did not answer in {ANSWER_WAIT_S:.0f} s; it may still revert them")
                continue
            by_id = {r.edit_id: r for r in pending.records}
            done = [r for r in pending.records if r.edit_id in set(answer.edit_ids)]  # the agent's order: a redo applies them so
            self.reverted.update(r.edit_id for r in done)
            self.live.agent_reverted(answer.ops)
            outcome.restored += [f"reverted {r.summary}" for r in done]
            outcome.kept += [f"{by_id[x.edit_id].summary} — {refusal_reason(x.error)}" for x in answer.refused if x.edit_id in by_id]
            if done:
                reverted.append((pending.run, done))
        outcome.redo = reverted

    async def _settle_redo(self, pending: _Pending, outcome: PartOutcome) -> None:
        assert pending.futures is not None
        for record in pending.records:
            ack = await _answer(pending.futures[record.edit_id])
            if ack is None:
                outcome.not_restored.append(f"{record.summary} — the page did not answer; it may still apply it")
            elif ack.ok:
                self.reverted.discard(record.edit_id)
                outcome.restored.append(f"applied again {record.summary}")
            else:
                outcome.kept.append(f"{record.summary} — {refusal_reason(ack.error) if ack.error else 'refused by the page'}")

    def redo(self, outcome: PartOutcome) -> PartOutcome:
        """Apply the reverted edits again (oldest first), each as its own edit the page checks."""
        from nb_agent.jupyter.live.protocol import EditMessage

        again = PartOutcome(part=self.name, pending=[])
        for live_run, records in outcome.redo or []:
            if live_run.channel.closed:
                again.not_restored += [f"{r.summary} — the notebook page is closed" for r in records]
                continue
            futures = {}
            for record in records:
                edit = EditMessage(edit_id=uuid.uuid4().hex, run_id=live_run.run_id, ops=record.ops, redo_of=record.edit_id, review=record.review)
                futures[record.edit_id] = self.live.hub.start_edit(live_run.channel, edit)
            again.pending.append(_Pending(run=live_run, records=records, futures=futures))
        return again


async def _answer(future: asyncio.Future[Any]) -> Any:
    try:
        return await asyncio.wait_for(asyncio.shield(future), ANSWER_WAIT_S)
    except asyncio.TimeoutError:
        return None
