"""The kernel's view of the open notebook during one run: the page's latest snapshot, with
the agent's own edits applied on top, and what the agent has seen of each cell.

Conflicts are decided here first (with what the kernel knows) and again by the page when
it applies an edit (with what the user has on screen): a cell the user changed since the
agent read it, a cell whose editor has the focus, a running cell.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from nb_agent.errors import ToolError
from nb_agent.jupyter.live.protocol import (
    DeleteOp,
    EditOp,
    InsertOp,
    LiveCell,
    MoveOp,
    ReplaceOp,
    SetOutputsOp,
    Snapshot,
)

_INDEX_ID = re.compile(r"^cell-(\d+)$")


class LiveEditRefused(ToolError):
    """An edit of the live notebook was refused; the message tells the model what to do."""


def not_read_message(path: str) -> str:
    return (
        f"Read the notebook {path} first: it is open in the user's browser, and Read shows its live "
        "content (unsaved edits included) with the cell ids to edit."
    )


def changed_message(cell_id: str) -> str:
    return (
        f"Cell {cell_id} changed since you last read the notebook (the user edited it). "
        "Read the notebook again, then make your edit on its current content."
    )


def editing_message(cell_id: str) -> str:
    return (
        f"The user is editing cell {cell_id} right now, so it was not changed. Leave that cell to them "
        "(or ask them), and Read the notebook again before editing it."
    )


def running_message(cell_id: str, executing: bool) -> str:
    what = "is the %%agent cell running you" if executing else "is running"
    return f"Cell {cell_id} {what}; a running cell cannot be edited."


@dataclass(kw_only=True)
class LiveDocument:
    snapshot: Snapshot
    cells: list[LiveCell] = field(default_factory=list)
    executing_cell_id: str | None = None
    editing_cell_id: str | None = None
    seen: dict[str, str] = field(default_factory=dict)
    """Cell id → the source the agent last read or wrote."""
    has_read: bool = False

    @classmethod
    def from_snapshot(cls, snapshot: Snapshot) -> LiveDocument:
        document = cls(snapshot=snapshot, executing_cell_id=snapshot.executing_cell_id)
        document.update(snapshot)
        return document

    def update(self, snapshot: Snapshot) -> None:
        """A newer snapshot from the page (the user kept working while the agent ran)."""
        self.snapshot = snapshot
        # The snapshot is this document's own (parsed for it): its cells are taken, not copied
        # (a copy of 300 cells with outputs cost more than the parse itself).
        self.cells = list(snapshot.cells)
        self.editing_cell_id = snapshot.editing_cell_id

    # --- lookups ----------------------------------------------------------------------------------
    def index(self, cell_id: str) -> int:
        for index, cell in enumerate(self.cells):
            if cell.id == cell_id:
                return index
        match = _INDEX_ID.match(cell_id)
        if match and int(match.group(1)) < len(self.cells):
            return int(match.group(1))
        raise ToolError(f'Cell with ID "{cell_id}" not found in notebook.')

    def cell(self, cell_id: str) -> LiveCell:
        return self.cells[self.index(cell_id)]

    def mark_read(self) -> None:
        self.seen = {cell.id: cell.source for cell in self.cells}
        self.has_read = True

    # --- conflicts ------------------------------------------------------------------------------
    def check_writable(self, cell_id: str) -> None:
        """Raise :class:`LiveEditRefused` when the agent may not change ``cell_id`` now."""
        cell = self.cell(cell_id)
        if cell.id == self.executing_cell_id or cell.running:
            raise LiveEditRefused(running_message(cell.id, cell.id == self.executing_cell_id))
        if cell.id == self.editing_cell_id:
            raise LiveEditRefused(editing_message(cell.id))
        if self.seen.get(cell.id) != cell.source:
            raise LiveEditRefused(changed_message(cell.id))

    # --- the agent's own edits, mirrored --------------------------------------------------------
    def apply(self, op: EditOp) -> None:
        if isinstance(op, ReplaceOp):
            cell = self.cell(op.cell_id)
            cell.source = op.source
            if op.cell_type:
                cell.cell_type = op.cell_type
            cell.outputs, cell.execution_count = [], None
            self.seen[cell.id] = op.source
        elif isinstance(op, InsertOp):
            at = 0 if op.after_cell_id is None else self.index(op.after_cell_id) + 1
            new = LiveCell(id=op.cell.id, cell_type=op.cell.cell_type, source=op.cell.source, metadata=op.cell.metadata)
            new.outputs, new.execution_count = list(op.cell.outputs), op.cell.execution_count
            self.cells.insert(at, new)
            self.seen[new.id] = new.source
        elif isinstance(op, DeleteOp):
            self.cells.pop(self.index(op.cell_id))
            self.seen.pop(op.cell_id, None)
        elif isinstance(op, MoveOp):
            cell = self.cells.pop(self.index(op.cell_id))
            if op.before_cell_id is not None:
                at = self.index(op.before_cell_id)
            else:
                at = 0 if op.after_cell_id is None else self.index(op.after_cell_id) + 1
            self.cells.insert(at, cell)
        elif isinstance(op, SetOutputsOp):
            cell = self.cell(op.cell_id)
            cell.outputs, cell.execution_count = list(op.outputs), op.execution_count

    def apply_quietly(self, ops: list[EditOp]) -> None:
        """Apply the user's revert of agent edits: the cells change, what the agent has
        read does not (it did not see the revert), and an operation that no longer fits
        (the user changed the notebook since) is skipped."""
        seen = dict(self.seen)
        for op in ops:
            try:
                self.apply(op)
            except ToolError:  # a cell it names is gone
                continue
        self.seen = seen

    # --- for Read ---------------------------------------------------------------------------------
    def as_notebook(self) -> dict[str, Any]:
        """The document as an nbformat-shaped dict (what Read renders)."""
        cells: list[dict[str, Any]] = []
        for cell in self.cells:
            entry: dict[str, Any] = {"id": cell.id, "cell_type": cell.cell_type, "source": cell.source, "metadata": cell.metadata}
            if cell.cell_type == "code":
                entry["execution_count"] = cell.execution_count
                entry["outputs"] = cell.outputs
            cells.append(entry)
        return {
            "cells": cells,
            "metadata": {"language_info": {"name": self.snapshot.language}},
            "nbformat": self.snapshot.nbformat,
            "nbformat_minor": self.snapshot.nbformat_minor,
        }

    def neighbours(self) -> tuple[str | None, str | None]:
        """The ids of the cells right above and below the running ``%%agent`` cell."""
        if self.executing_cell_id is None:
            return None, None
        try:
            index = self.index(self.executing_cell_id)
        except ToolError:
            return None, None
        above = self.cells[index - 1].id if index > 0 else None
        below = self.cells[index + 1].id if index + 1 < len(self.cells) else None
        return above, below
