"""What a NotebookEdit of a file would change (its approval card): the cell before → after,
an inserted cell with its neighbours, a deleted cell, a moved cell's new neighbours. The
file is not touched."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import nbformat

from nb_agent.jupyter.tools import KernelBridge, NotebookEdit
from nb_agent.testing.harness import tool_context
from nb_agent.tools.files.change_preview import CellChange


def _notebook(path: Path) -> list[str]:
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_markdown_cell("# Title"), nbformat.v4.new_code_cell("x = 1\ny = 2"), nbformat.v4.new_code_cell("print(x)")]
    path.write_text(nbformat.writes(notebook))
    return [c["id"] for c in json.loads(path.read_text())["cells"]]


def _change(tmp_path: Path, path: Path, **input) -> CellChange:
    tool = NotebookEdit(KernelBridge(shell=None, notebook_path=lambda: None))
    ctx = tool_context([tool], session_dir=tmp_path)
    parsed = tool.parse_input({"notebook_path": str(path), **input})
    assert asyncio.run(tool.validate_input(parsed, ctx)).ok
    change = asyncio.run(tool.change_preview(parsed, ctx))
    assert isinstance(change, CellChange)
    return change


def test_each_mode_previews_its_change_and_leaves_the_file(tmp_path):
    path = tmp_path / "a.ipynb"
    title, code, last = _notebook(path)
    saved = path.read_bytes()

    replace = _change(tmp_path, path, cell_id=code, new_source="x = 10\ny = 2")
    assert (replace.op, replace.cell_id, replace.before, replace.after) == ("replace", code, "x = 1\ny = 2", "x = 10\ny = 2")
    assert [line for line in replace.diff.splitlines() if line[:1] in "+-" and line[:3] not in ("+++", "---")] == ["-x = 1", "+x = 10"]

    retyped = _change(tmp_path, path, cell_id="cell-0", new_source="print('hi')", cell_type="code")
    assert retyped.cell_id == title and retyped.type_change == "markdown → code"

    insert = _change(tmp_path, path, cell_id=code, new_source="z = 3", cell_type="code", edit_mode="insert")
    assert insert.after == "z = 3" and insert.above.cell_id == code and insert.below.cell_id == last
    at_top = _change(tmp_path, path, new_source="# Intro", cell_type="markdown", edit_mode="insert")
    assert at_top.above is None and at_top.below.cell_id == title

    delete = _change(tmp_path, path, cell_id=last, edit_mode="delete")
    assert (delete.op, delete.before, delete.after) == ("delete", "print(x)", "")

    down = _change(tmp_path, path, cell_id=title, edit_mode="move", after_cell_id=last)
    assert down.above.cell_id == last and down.below is None and down.before == "# Title"
    up = _change(tmp_path, path, cell_id=last, edit_mode="move", before_cell_id=code)
    assert up.above.cell_id == title and up.below.cell_id == code
    assert path.read_bytes() == saved
