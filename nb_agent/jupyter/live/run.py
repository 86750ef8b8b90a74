"""One ``%%agent`` run against the live notebook: Read from the page's snapshot, edits sent
to the page that runs the cell, acknowledgements used when they arrive in time.

An edit is checked against the kernel's view first (refused at once when the user changed
the cell, is typing in it, or it runs), then sent. When the page's reply comes within
``ack_timeout`` the tool reports the page's verdict; when it does not (a kernel that only
handles the reply after the cell), the edit is reported as sent and reconciled at the end
of the run or at the next one.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any, Literal

from nb_agent.errors import ToolError
from nb_agent.jupyter.live.address import NotebookAddress
from nb_agent.jupyter.live.changes import WHILE_WORKING, light_copy, notebook_changes, reverted_note
from nb_agent.jupyter.live.document import (
    LiveDocument,
    LiveEditRefused,
    changed_message,
    editing_message,
    not_read_message,
    running_message,
)
from nb_agent.jupyter.live.hub import LiveChannel, LiveHub
from nb_agent.jupyter.live.protocol import (
    Ack,
    DeleteOp,
    EditMessage,
    EditOp,
    InsertOp,
    MoveOp,
    NewCell,
    ReplaceOp,
    RunMessage,
    Snapshot,
)
from nb_agent.tools.files.change_preview import CellChange, cell_change

ACK_TIMEOUT_S = 2.0
CODE_CELL_HEADER = "# Code the agent ran (ExecuteCode)"
"""The first line of each cell of the agent's code (the cell says whose it is)."""
LIVE_NOTE = "Applied live in the notebook open in the user's browser (not saved: saving stays the user's)."
UNCONFIRMED_NOTE = (
    "Sent to the notebook open in the user's browser; the page has not confirmed it yet "
    "(it will be checked when this run ends)."
)

EditStatus = Literal["applied", "sent", "refused"]


def new_cell_id() -> str:
    return uuid.uuid4().hex[:8]


@dataclass(kw_only=True)
class EditRecord:
    """One agent edit of the live notebook, for the run's card, revert and reconciliation."""

    edit_id: str
    summary: str
    cell_id: str | None
    ops: list[EditOp]
    inverse: list[EditOp]
    kind: str = "edit"
    """``insert``, ``replace``, ``delete``, ``move`` or ``code cells`` (for the run's card)."""
    preview: str = ""
    """The start of the source the edit wrote (or, for a delete, removed)."""
    change: CellChange | None = None
    """The cell before and after (the card shows its diff)."""
    review: bool = False
    """Made without asking the user: its cell is marked pending review in the page until Keep or Undo."""
    status: EditStatus = "sent"
    error: str | None = None


def refusal_message(ack: Ack) -> str:
    error = ack.error
    if error is None:
        return "The notebook page refused the edit."
    cell_id = error.cell_id or "?"
    if error.code == "changed":
        return changed_message(cell_id)
    if error.code == "editing":
        return editing_message(cell_id)
    if error.code == "running":
        return running_message(cell_id, executing=False)
    return f"The notebook page refused the edit: {error.message}"


@dataclass(kw_only=True)
class LiveRun:
    hub: LiveHub
    channel: LiveChannel
    document: LiveDocument
    address: NotebookAddress
    """Where the open notebook is; which tool paths name it."""
    run_id: str = field(default_factory=lambda: uuid.uuid4().hex)
    ack_timeout: float = ACK_TIMEOUT_S
    edits: list[EditRecord] = field(default_factory=list)
    acks_arrive: bool = True
    """False once an acknowledgement missed its timeout: later edits do not wait."""
    told: LiveDocument | None = None
    """The notebook as the agent knows it since its last turn (its own edits applied): what
    the user changed mid-run is the difference with :attr:`document`."""
    page_changed: bool = False
    """A snapshot came in since the last :meth:`changes_since_turn`."""
    reverted: list[str] = field(default_factory=list)
    """Summaries of agent edits (of an earlier run) the user reverted during this run, not told yet."""
    review: bool = True
    """Edits made without asking are marked pending review (``AgentMagics.review_edits``)."""
    seq: int = 0
    """Its number among the kernel's live runs (1, 2, ...)."""

    def start(self) -> None:
        self.told = LiveDocument(snapshot=self.document.snapshot, cells=light_copy(self.document.cells))
        self.channel.listeners.append(self._on_snapshot)
        start = RunMessage(phase="start", run_id=self.run_id, cell_id=self.document.executing_cell_id)
        self.channel.send(start.model_dump(mode="json"))

    def _on_snapshot(self, snapshot: Snapshot) -> None:
        if snapshot.reason in ("change", "request"):
            self.page_changed = True
            self.document.update(snapshot)
            for record in self.edits:  # edits the page had not applied yet when it took the snapshot
                if record.status == "sent" and record.edit_id not in self.hub.acks:
                    for op in record.ops:
                        try:
                            self.document.apply(op)
                        except Exception:  # noqa: BLE001 - the page will report it
                            pass

    def changes_since_turn(self) -> str | None:
        """What the user did to the notebook since the agent's last turn, when the page told
        the kernel mid-run (its messages reach a running cell); ``None`` otherwise."""
        reverted, self.reverted = self.reverted, []
        if not self.page_changed or self.told is None:
            return reverted_note(reverted) if reverted else None
        self.page_changed = False
        skip = {self.document.executing_cell_id} if self.document.executing_cell_id else set()
        note = notebook_changes(self.told.cells, self.document.cells, skip=skip, heading=WHILE_WORKING)
        self.told = LiveDocument(snapshot=self.document.snapshot, cells=light_copy(self.document.cells))
        notes = [n for n in (note, reverted_note(reverted) if reverted else None) if n]
        return "\n".join(notes) or None

    def finish(self) -> None:
        if self._on_snapshot in self.channel.listeners:
            self.channel.listeners.remove(self._on_snapshot)
        self.channel.send(RunMessage(phase="end", run_id=self.run_id).model_dump(mode="json"))
        self.reconcile()

    def reconcile(self) -> list[EditRecord]:
        """Apply the acknowledgements that arrived late; returns the edits refused by them."""
        refused = []
        for record in self.edits:
            ack = self.hub.acks.get(record.edit_id)
            if record.status != "sent" or ack is None:
                continue
            if ack.ok:
                record.status = "applied"
            else:
                record.status, record.error = "refused", refusal_message(ack)
                refused.append(record)
        return refused

    # --- what the tools call -----------------------------------------------------------------
    def shown_path(self) -> str:
        return str(self.address.shown)

    async def send(
        self, ops: list[EditOp], *, summary: str, cell_id: str | None, inverse: list[EditOp], kind: str = "edit", preview: str = "",
        change: CellChange | None = None, review: bool = False,
    ) -> EditRecord:  # fmt: skip
        """Send ``ops`` as one transaction; raises :class:`LiveEditRefused` on a refusal."""
        edit = EditMessage(
            edit_id=uuid.uuid4().hex,
            run_id=self.run_id,
            ops=ops,
            guard_cell_ids=[self.document.executing_cell_id] if self.document.executing_cell_id else [],
            review=review,
        )
        record = EditRecord(
            edit_id=edit.edit_id, summary=summary, cell_id=cell_id, ops=ops, inverse=inverse, kind=kind, preview=preview, change=change, review=review
        )  # fmt: skip
        ack = await self.hub.send_edit(self.channel, edit, self.ack_timeout if self.acks_arrive else 0)
        if ack is None:
            self.acks_arrive = False
        elif not ack.ok:
            record.status, record.error = "refused", refusal_message(ack)
            self.edits.append(record)
            raise LiveEditRefused(record.error)
        else:
            record.status = "applied"
        for op in ops:
            self.document.apply(op)
            if self.told is not None:
                try:
                    self.told.apply(op)  # the agent's own edit is not news to it
                except ToolError:
                    pass
        self.edits.append(record)
        return record

    async def notebook_edit(
        self, *, cell_id: str | None, new_source: str, cell_type: str | None, edit_mode: str,
        after_cell_id: str | None = None, before_cell_id: str | None = None, asked: bool = False,
    ) -> tuple[str, str, EditRecord]:  # fmt: skip
        """NotebookEdit's modes; returns ``(cell id, cell type, record)``. An edit the user was
        not asked about (``asked`` false) is marked for review when :attr:`review` is on."""
        document = self.document
        review = self.review and not asked
        if not document.has_read:
            raise LiveEditRefused(not_read_message(self.shown_path()))
        if edit_mode == "move":
            assert cell_id is not None
            record = await self.move(cell_id=cell_id, after_cell_id=after_cell_id, before_cell_id=before_cell_id, review=review)
            return record.cell_id or cell_id, document.cell(record.cell_id or cell_id).cell_type, record
        if edit_mode == "insert":
            assert cell_type is not None
            after = document.cell(cell_id).id if cell_id else None
            new = NewCell(id=new_cell_id(), cell_type=cell_type, source=new_source)  # type: ignore[arg-type]
            record = await self.send(
                [InsertOp(after_cell_id=after, cell=new)],
                summary=f"inserted {cell_type} cell {new.id}",
                cell_id=new.id,
                inverse=[DeleteOp(cell_id=new.id, expected_source=new_source)],
                kind="insert",
                preview=new_source,
                change=cell_change(op="insert", notebook=self.shown_path(), cell_id=new.id, cell_type=cell_type, after=new_source),
                review=review,
            )
            return new.id, cell_type, record
        assert cell_id is not None
        cell = document.cell(cell_id)
        document.check_writable(cell.id)
        if edit_mode == "delete":
            index = document.index(cell.id)
            before = document.cells[index - 1].id if index > 0 else None
            restored = NewCell(
                id=cell.id, cell_type=cell.cell_type, source=cell.source, metadata=cell.metadata,
                outputs=cell.outputs, execution_count=cell.execution_count,
            )  # fmt: skip
            record = await self.send(
                [DeleteOp(cell_id=cell.id, expected_source=cell.source)],
                summary=f"deleted cell {cell.id}",
                cell_id=cell.id,
                inverse=[InsertOp(after_cell_id=before, cell=restored)],
                kind="delete",
                preview=cell.source,
                change=cell_change(op="delete", notebook=self.shown_path(), cell_id=cell.id, cell_type=cell.cell_type, before=cell.source),
                review=review,
            )
            return cell.id, cell.cell_type, record
        target_type = cell_type or cell.cell_type
        record = await self.send(
            [ReplaceOp(cell_id=cell.id, source=new_source, cell_type=target_type, expected_source=cell.source)],  # type: ignore[arg-type]
            summary=f"replaced cell {cell.id}",
            cell_id=cell.id,
            inverse=[ReplaceOp(cell_id=cell.id, source=cell.source, cell_type=cell.cell_type, expected_source=new_source)],
            kind="replace",
            preview=new_source,
            change=cell_change(
                op="replace", notebook=self.shown_path(), cell_id=cell.id, cell_type=target_type, before=cell.source, after=new_source, old_type=cell.cell_type
            ),
            review=review,
        )
        return cell.id, target_type, record

    async def move(self, *, cell_id: str, after_cell_id: str | None, before_cell_id: str | None = None, review: bool = False) -> EditRecord:
        """Move a cell right after ``after_cell_id`` (``None``: to the top) or, when given,
        right before ``before_cell_id``; one transaction, the cell keeps its id and outputs."""
        document = self.document
        cell = document.cell(cell_id)
        if cell.id == document.executing_cell_id or cell.running:
            raise LiveEditRefused(running_message(cell.id, cell.id == document.executing_cell_id))
        if cell.id == document.editing_cell_id:
            raise LiveEditRefused(editing_message(cell.id))
        index = document.index(cell.id)
        previous = document.cells[index - 1].id if index > 0 else None
        before = document.cell(before_cell_id).id if before_cell_id else None
        if before is not None:
            others = [c.id for c in document.cells if c.id != cell.id]
            at = others.index(before)
            after = others[at - 1] if at > 0 else None
        else:
            after = document.cell(after_cell_id).id if after_cell_id else None
        if cell.id in (after, before):
            raise LiveEditRefused(f"Cell {cell.id} cannot be moved next to itself; give another cell as the target.")
        where = f"before cell {before}" if before else (f"after cell {after}" if after else "to the top")
        inverse = MoveOp(cell_id=cell.id, after_cell_id=previous)
        return await self.send(
            [MoveOp(cell_id=cell.id, after_cell_id=after, before_cell_id=before)],
            summary=f"moved cell {cell.id} {where}",
            cell_id=cell.id,
            inverse=[inverse],
            kind="move",
            preview=cell.source,
            change=cell_change(op="move", notebook=self.shown_path(), cell_id=cell.id, cell_type=cell.cell_type, before=cell.source),
            review=review,
        )

    def add_code_cells(self, snippets: list[str]) -> EditRecord:
        """The agent's code as real cells right below the ``%%agent`` cell (each headed by
        :data:`CODE_CELL_HEADER`), marked as the agent's, in one transaction; sent without
        waiting (the run has ended)."""
        after = self.document.executing_cell_id
        ops: list[EditOp] = []
        sources = [f"{CODE_CELL_HEADER}\n{snippet}" for snippet in snippets]
        for source in sources:
            cell = NewCell(id=new_cell_id(), cell_type="code", source=source, metadata={"nb_agent": {"agent_made": True, "run_id": self.run_id}})
            ops.append(InsertOp(after_cell_id=after, cell=cell))
            after = cell.id
        edit = EditMessage(edit_id=uuid.uuid4().hex, run_id=self.run_id, ops=ops)
        self.channel.send(edit.model_dump(mode="json"))
        inverse: list[EditOp] = [DeleteOp(cell_id=op.cell.id, expected_source=op.cell.source) for op in ops if isinstance(op, InsertOp)]
        record = EditRecord(
            edit_id=edit.edit_id, summary=f"added {len(ops)} code cell(s) of the agent", cell_id=ops[0].cell.id if ops else None,  # type: ignore[union-attr]
            ops=ops, inverse=inverse, kind="code cells", preview=snippets[0] if snippets else "",  # not the header every cell has
            change=cell_change(op="insert", notebook=self.shown_path(), cell_id=ops[0].cell.id if ops else None, cell_type="code", after="\n\n".join(sources)),  # type: ignore[union-attr]
        )  # fmt: skip
        self.edits.append(record)
        return record

    async def refresh(self) -> None:
        """Ask the page for its current state (used when its replies arrive mid-run)."""
        if not self.acks_arrive:
            return
        snapshot = await self.hub.request_snapshot(self.channel, self.ack_timeout)
        if snapshot is None:
            self.acks_arrive = False


def revert_ops(records: list[EditRecord]) -> list[EditOp]:
    """The inverse of every applied (or unconfirmed) edit, newest first: one transaction."""
    ops: list[EditOp] = []
    for record in reversed(records):
        if record.status != "refused":
            ops.extend(record.inverse)
    return ops


def describe(records: list[EditRecord]) -> list[str]:
    shown = {"applied": "applied", "sent": "sent, not confirmed", "refused": "refused"}
    return [f"{r.summary} — {shown[r.status]}" + (f": {r.error}" if r.error else "") for r in records]


def ack_summary(records: list[EditRecord]) -> dict[str, Any]:
    return {status: sum(1 for r in records if r.status == status) for status in ("applied", "sent", "refused")}
