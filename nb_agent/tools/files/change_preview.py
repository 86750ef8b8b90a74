"""What a call would change, worked out before it runs, so an approval card can show it.

A file tool's change is a unified diff (``difflib``, a few lines of context), or a new
file's head; a notebook tool's is a cell before and after, with its neighbours where the
place matters (an insert, a move). These are plain data for any approver: the Jupyter
cards render them, a text approver can print ``diff``.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Literal

from nb_agent.tools.files.encoding import split_lines

DIFF_CONTEXT_LINES = 3
HEAD_LINES = 40
"""A new file's first lines shown before it is written."""


def unified_diff(path: str, before: str, after: str, *, context: int = DIFF_CONTEXT_LINES) -> str:
    """A unified diff of two texts (``\\n`` endings), for UIs and permission prompts."""
    lines = difflib.unified_diff(split_lines(before), split_lines(after), fromfile=path, tofile=path, n=context)
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)


def diff_counts(diff: str) -> tuple[int, int]:
    """Lines added and removed by a unified diff (its ``+++``/``---`` headers not counted)."""
    added = removed = 0
    for line in diff.splitlines():
        if line.startswith("+") and not line.startswith("+++"):
            added += 1
        elif line.startswith("-") and not line.startswith("---"):
            removed += 1
    return added, removed


@dataclass(frozen=True, kw_only=True, slots=True)
class FileChange:
    """An Edit or Write of a file: ``diff`` for a change, ``head`` for a new file."""

    path: str
    created: bool = False
    diff: str = ""
    head: str = ""
    """A new file's first :data:`HEAD_LINES` lines."""
    total_lines: int = 0
    """A new file's length in lines (so "N more lines" can be said)."""


@dataclass(frozen=True, kw_only=True, slots=True)
class CellGlimpse:
    """A neighbour of the cell that changes: its id, type and first lines."""

    cell_id: str
    cell_type: str
    source: str


@dataclass(frozen=True, kw_only=True, slots=True)
class CellChange:
    """A NotebookEdit: ``before`` is the cell's source as it is (replace, delete, move),
    ``after`` what it will be (replace, insert); ``diff`` compares them for a replace.
    ``above``/``below`` are the new neighbours of an inserted or moved cell."""

    op: Literal["replace", "insert", "delete", "move"]
    notebook: str
    cell_id: str | None
    cell_type: str
    before: str = ""
    after: str = ""
    diff: str = ""
    type_change: str | None = None
    """``code → markdown`` when a replace changes the cell's type."""
    above: CellGlimpse | None = None
    below: CellGlimpse | None = None


ChangePreview = FileChange | CellChange


def file_change(path: str, before: str | None, after: str) -> FileChange:
    """``before`` is ``None`` for a file that does not exist yet."""
    if before is None:
        lines = split_lines(after)
        return FileChange(path=path, created=True, head="".join(lines[:HEAD_LINES]), total_lines=len(lines))
    return FileChange(path=path, diff=unified_diff(path, before, after))


def _ended(source: str) -> str:
    return source if not source or source.endswith("\n") else source + "\n"


def cell_change(
    *,
    op: Literal["replace", "insert", "delete", "move"],
    notebook: str,
    cell_id: str | None,
    cell_type: str,
    before: str = "",
    after: str = "",
    old_type: str | None = None,
    above: CellGlimpse | None = None,
    below: CellGlimpse | None = None,
) -> CellChange:
    """A :class:`CellChange`; a replace gets the diff of the cell's source."""
    label = f"cell {cell_id}" if cell_id else "cell"
    # a cell's source has no final newline: no "\ No newline at end of file" on every cell
    diff = unified_diff(label, _ended(before), _ended(after)) if op == "replace" else ""
    type_change = f"{old_type} → {cell_type}" if op == "replace" and old_type and old_type != cell_type else None
    return CellChange(
        op=op, notebook=notebook, cell_id=cell_id, cell_type=cell_type, before=before, after=after, diff=diff,
        type_change=type_change, above=above, below=below,
    )  # fmt: skip
