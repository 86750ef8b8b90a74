"""NotebookEdit on real .ipynb files: read-before-edit, staleness, ids, validity, atomic writes."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import nbformat
import pytest

from nb_agent.errors import ToolError
from nb_agent.jupyter.tools import KernelBridge, NotebookEdit
from nb_agent.testing.harness import tool_context
from nb_agent.tools.files.read import ReadTool


def _make_notebook(path: Path, *, minor: int = 5) -> Path:
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [
        nbformat.v4.new_markdown_cell("# Title"),
        nbformat.v4.new_code_cell("x = 1", execution_count=1, outputs=[nbformat.v4.new_output("stream", text="hi\n")]),
        nbformat.v4.new_code_cell("print(x)"),
    ]
    if minor < 5:
        notebook.nbformat_minor = minor
        for cell in notebook.cells:
            cell.pop("id", None)
    path.write_text(nbformat.writes(notebook))
    return path


def _ids(path: Path) -> list[str | None]:
    return [c.get("id") for c in json.loads(path.read_text())["cells"]]


class Harness:
    def __init__(self, tmp_path: Path, current: Path | None = None) -> None:
        self.bridge = KernelBridge(shell=None, notebook_path=lambda: current)
        self.tool = NotebookEdit(self.bridge)
        self.ctx = tool_context([self.tool, ReadTool()], session_dir=tmp_path)

    def read(self, path: Path) -> None:
        reader = ReadTool()
        parsed = reader.parse_input({"file_path": str(path)})
        asyncio.run(reader.validate_input(parsed, self.ctx))
        asyncio.run(reader.call(parsed, self.ctx, lambda _: None))

    def edit(self, **input):
        parsed = self.tool.parse_input(input)
        validation = asyncio.run(self.tool.validate_input(parsed, self.ctx))
        if not validation.ok:
            raise ToolError(validation.message)
        result = asyncio.run(self.tool.call(parsed, self.ctx, lambda _: None))
        return self.tool.map_result_to_block(result.data, "t")


@pytest.fixture
def nb(tmp_path):
    return _make_notebook(tmp_path / "analysis.ipynb")


def test_replace_keeps_ids_clears_outputs_and_stays_valid(tmp_path, nb):
    h = Harness(tmp_path)
    h.read(nb)
    before = _ids(nb)
    text = h.edit(notebook_path=str(nb), cell_id=before[1], new_source="x = 2")
    assert text == f"Updated cell {before[1]} with x = 2"
    notebook = nbformat.read(nb, as_version=4)
    nbformat.validate(notebook)
    assert _ids(nb) == before
    assert notebook.cells[1].source == "x = 2" and notebook.cells[1].outputs == [] and notebook.cells[1].execution_count is None


def test_insert_after_a_cell_and_at_the_start(tmp_path, nb):
    h = Harness(tmp_path)
    h.read(nb)
    first = _ids(nb)[0]
    h.edit(notebook_path=str(nb), cell_id=first, new_source="y = 3", cell_type="code", edit_mode="insert")
    h.edit(notebook_path=str(nb), new_source="Intro", cell_type="markdown", edit_mode="insert")  # edits without re-reading
    notebook = nbformat.read(nb, as_version=4)
    nbformat.validate(notebook)
    assert [c.source for c in notebook.cells] == ["Intro", "# Title", "y = 3", "x = 1", "print(x)"]
    assert len(set(_ids(nb))) == 5 and all(_ids(nb))


def test_delete_and_change_type_by_index_id(tmp_path, nb):
    h = Harness(tmp_path)
    h.read(nb)
    assert h.edit(notebook_path=str(nb), cell_id="cell-2", edit_mode="delete").startswith("Deleted cell")
    h.edit(notebook_path=str(nb), cell_id="cell-1", new_source="Now prose", cell_type="markdown")
    notebook = nbformat.read(nb, as_version=4)
    nbformat.validate(notebook)
    assert [c.cell_type for c in notebook.cells] == ["markdown", "markdown"]


def test_move_after_or_before_a_cell_keeps_ids_and_outputs(tmp_path, nb):
    h = Harness(tmp_path)
    h.read(nb)
    title, x, show = _ids(nb)
    assert h.edit(notebook_path=str(nb), cell_id=x, edit_mode="move", after_cell_id=show) == f"Moved cell {x} after cell {show}"
    assert _ids(nb) == [title, show, x]
    h.edit(notebook_path=str(nb), cell_id=x, edit_mode="move", before_cell_id=title)
    h.edit(notebook_path=str(nb), cell_id="cell-2", edit_mode="move", before_cell_id="cell-1")  # by index: print(x) up one
    notebook = nbformat.read(nb, as_version=4)
    nbformat.validate(notebook)
    assert _ids(nb) == [x, show, title]
    assert notebook.cells[0].outputs[0]["text"] == "hi\n" and notebook.cells[0].execution_count == 1


def test_old_notebooks_without_ids_stay_without_ids(tmp_path):
    path = _make_notebook(tmp_path / "old.ipynb", minor=4)
    h = Harness(tmp_path)
    h.read(path)
    h.edit(notebook_path=str(path), cell_id="cell-0", new_source="new", cell_type="code", edit_mode="insert")
    data = json.loads(path.read_text())
    assert data["nbformat_minor"] == 4 and all("id" not in c for c in data["cells"])
    nbformat.validate(nbformat.reads(path.read_text(), as_version=4))


def test_must_read_first_and_refuses_a_changed_file(tmp_path, nb):
    h = Harness(tmp_path)
    with pytest.raises(ToolError, match="has not been read"):
        h.edit(notebook_path=str(nb), cell_id="cell-0", new_source="z")
    h.read(nb)
    notebook = nbformat.read(nb, as_version=4)
    notebook.cells[0].source = "# Changed by the user"
    nbformat.write(notebook, nb)
    with pytest.raises(ToolError, match="modified since read"):
        h.edit(notebook_path=str(nb), cell_id="cell-0", new_source="z")
    assert "Changed by the user" in nb.read_text()


@pytest.mark.parametrize(
    "input, message",
    [
        ({"cell_id": "missing", "new_source": "x"}, 'Cell with ID "missing" not found'),
        ({"cell_id": "cell-9", "new_source": "x"}, "Cell with index 9 does not exist"),
        ({"new_source": "x", "edit_mode": "insert"}, "Cell type is required"),
        ({"new_source": "x"}, "Cell ID must be specified"),
        ({"cell_id": "cell-0", "edit_mode": "move"}, "exactly one of after_cell_id and before_cell_id"),
        ({"cell_id": "cell-0", "edit_mode": "move", "after_cell_id": "cell-1", "before_cell_id": "cell-2"}, "exactly one of"),
        ({"cell_id": "cell-0", "edit_mode": "move", "after_cell_id": "cell-0"}, "next to itself"),
        ({"cell_id": "cell-0", "edit_mode": "move", "after_cell_id": "nowhere"}, 'Cell with ID "nowhere" not found'),
        ({"cell_id": "cell-0", "new_source": "x", "after_cell_id": "cell-1"}, "only for edit_mode=move"),
    ],
)
def test_invalid_edits_are_refused(tmp_path, nb, input, message):
    h = Harness(tmp_path)
    h.read(nb)
    with pytest.raises(ToolError, match=message):
        h.edit(notebook_path=str(nb), **input)


def test_only_notebooks(tmp_path):
    other = tmp_path / "a.py"
    other.write_text("x = 1\n")
    with pytest.raises(ToolError, match="must be a Jupyter notebook"):
        Harness(tmp_path).edit(notebook_path=str(other), cell_id="cell-0", new_source="y")


def test_the_open_notebook_warns_it_must_be_reloaded(tmp_path, nb):
    h = Harness(tmp_path, current=nb)
    h.read(nb)
    text = h.edit(notebook_path=str(nb), cell_id="cell-0", new_source="# New title")
    assert "reload it from disk" in text


def test_write_is_atomic_and_keeps_the_mode(tmp_path, nb):
    os.chmod(nb, 0o640)
    h = Harness(tmp_path)
    h.read(nb)
    inode = nb.stat().st_ino
    h.edit(notebook_path=str(nb), cell_id="cell-0", new_source="# T")
    assert nb.stat().st_ino != inode  # replaced, not rewritten in place
    assert (nb.stat().st_mode & 0o777) == 0o640
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_is_a_file_edit_for_the_rules(tmp_path, nb):
    from nb_agent.permissions.rules import tool_family

    tool = NotebookEdit()
    assert tool_family(tool) == "file_edit"
    assert tool.permission_rule_content(tool.parse_input({"notebook_path": str(nb), "new_source": ""})) == str(nb)
