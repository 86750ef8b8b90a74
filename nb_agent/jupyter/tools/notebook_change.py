"""What a NotebookEdit would change, for its approval card: the cell before and after, an
inserted cell with its neighbours, a deleted cell's source, a moved cell's new place.

Worked out from the same notebook the call edits (the live page's snapshot, or the file),
as a list of ``(label, type, source)`` rows and a resolver of the call's cell ids.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from nb_agent.tools.files.change_preview import CellChange, CellGlimpse, cell_change

Row = tuple[str, str, str]
"""A cell as ``(id or cell-N, cell type, source)``."""
GLIMPSE_LINES = 4


def _glimpse(row: Row | None) -> CellGlimpse | None:
    if row is None:
        return None
    lines = row[2].splitlines()
    shown = "\n".join(lines[:GLIMPSE_LINES]) + (f"\n… ({len(lines) - GLIMPSE_LINES} more lines)" if len(lines) > GLIMPSE_LINES else "")
    return CellGlimpse(cell_id=row[0], cell_type=row[1], source=shown)


def _around(rows: list[Row], index: int) -> tuple[CellGlimpse | None, CellGlimpse | None]:
    """The cells that will be above and below a cell put at ``index`` of ``rows``."""
    return _glimpse(rows[index - 1] if index > 0 else None), _glimpse(rows[index] if index < len(rows) else None)


def notebook_change(input: Any, *, notebook: str, rows: list[Row], resolve: Callable[[str], int]) -> CellChange:
    """The change ``input`` (a NotebookEditInput) would make to ``rows``; ``resolve`` gives
    the index of a cell id (or ``cell-N``) and raises ``ToolError`` for an unknown one."""
    mode = input.edit_mode
    if mode == "insert":
        index = 0 if input.cell_id is None else resolve(input.cell_id) + 1
        above, below = _around(rows, index)
        return cell_change(op="insert", notebook=notebook, cell_id=None, cell_type=input.cell_type or "code", after=input.new_source, above=above, below=below)
    index = resolve(input.cell_id)
    label, old_type, source = rows[index]
    if mode == "delete":
        return cell_change(op="delete", notebook=notebook, cell_id=label, cell_type=old_type, before=source)
    if mode == "move":
        others = rows[:index] + rows[index + 1 :]
        target = resolve(input.before_cell_id or input.after_cell_id)
        at = target - (1 if target > index else 0) + (0 if input.before_cell_id else 1)
        above, below = _around(others, at)
        return cell_change(op="move", notebook=notebook, cell_id=label, cell_type=old_type, before=source, above=above, below=below)
    new_type = input.cell_type or old_type
    return cell_change(op="replace", notebook=notebook, cell_id=label, cell_type=new_type, before=source, after=input.new_source, old_type=old_type)
