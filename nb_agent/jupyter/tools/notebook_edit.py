"""NotebookEdit: replace, insert, delete or move one cell of a ``.ipynb`` file (Claude Code's tool).

Like Edit, it needs a prior full Read of the notebook (the session's file-state cache)
and refuses a notebook that changed on disk since. The result stays valid nbformat,
cell ids are kept (a new cell gets one when the notebook has ids), and the file is
written atomically (temp file in the same directory, then ``os.replace``). Editing the
notebook that is open in the browser warns that it must be reloaded there, unless the
notebook is live (the ``nb-agent-live`` extension answered): then the edit is applied in the
page by cell id (:mod:`nb_agent.jupyter.live`) and the file is not touched. Whether a path
names the live notebook is decided once, in ``validate_input``, by the page's address of it
(:mod:`nb_agent.jupyter.live.address`): the permission check and the call then act on the
same target, so a call allowed as an edit of the open notebook never writes a file.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import stat
import tempfile
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

from nb_agent.errors import ToolError
from nb_agent.jupyter.tools.bridge import KernelBridge
from nb_agent.jupyter.tools.notebook_change import notebook_change
from nb_agent.tools.base import (
    FileState,
    ProgressCallback,
    Tool,
    ToolResult,
    ToolSession,
    ToolUseContext,
    ValidationResult,
)
from nb_agent.tools.files.change_preview import CellChange

_INDEX_ID = re.compile(r"^cell-(\d+)$")
NOT_READ_MESSAGE = "File has not been read yet. Read it first before writing to it."
MODIFIED_MESSAGE = (
    "File has been modified since read, either by the user or by a linter. Read it again before attempting to write it."
)
LIVE_GONE_MESSAGE = (
    "The notebook's page is no longer connected to this run (the run ended, or the page went away), "
    "so nothing was changed. Read the notebook again."
)
OPEN_NOTEBOOK_NOTE = (
    "This is the notebook open in the user's browser: they must reload it from disk "
    "(File > Reload Notebook from Disk) to see the change; saving from the browser first would overwrite it."
)


class NotebookEditInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    notebook_path: str = Field(description="The absolute path to the Jupyter notebook file to edit (must be absolute, not relative)")
    cell_id: str | None = Field(
        default=None,
        description=(
            "The ID of the cell to edit (as Read shows it; cell-N for the N-th cell, 0-based, when cells have no ids). "
            "When inserting a new cell, the new cell will be inserted after the cell with this ID, or at the beginning if not specified."
        ),
    )
    new_source: str = Field(default="", description="The new source for the cell")
    cell_type: Literal["code", "markdown"] | None = Field(
        default=None,
        description="The type of the cell (code or markdown). If not specified, it defaults to the current cell type. If using edit_mode=insert, this is required.",
    )
    edit_mode: Literal["replace", "insert", "delete", "move"] = Field(
        default="replace", description="The type of edit to make (replace, insert, delete, move). Defaults to replace."
    )
    after_cell_id: str | None = Field(
        default=None, description="For edit_mode=move: move the cell right after the cell with this ID (cell-N works too)."
    )
    before_cell_id: str | None = Field(
        default=None, description="For edit_mode=move: move the cell right before the cell with this ID (cell-N works too)."
    )
    _live: Any = PrivateAttr(default=None)
    """The live run whose open notebook ``notebook_path`` names (set by ``validate_input``),
    or ``None``: a file on this machine."""


class NotebookEditResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    notebook_path: str
    edit_mode: str
    cell_id: str | None
    cell_type: str | None
    new_source: str
    note: str | None = None
    moved_to: str | None = None
    """For a move: ``after cell X`` or ``before cell X``."""

    def to_text(self) -> str:
        if self.edit_mode == "move":
            text = f"Moved cell {self.cell_id} {self.moved_to}"
        elif self.edit_mode == "delete":
            text = f"Deleted cell {self.cell_id}"
        elif self.edit_mode == "insert":
            text = f"Inserted cell {self.cell_id} with {self.new_source}"
        else:
            text = f"Updated cell {self.cell_id} with {self.new_source}"
        return f"{text}\n\n{self.note}" if self.note else text


# --- file state (shared with the Read tool when present) ----------------------------------


def _state_keys(path: Path) -> list[str]:
    """The Read tool keys the cache by real path; a path as given is accepted too."""
    keys = [os.path.realpath(path), os.path.abspath(path)]
    return list(dict.fromkeys(keys))


def _normalize(text: str) -> str:
    try:
        from nb_agent.tools.files.encoding import display_text

        return display_text(text)
    except ImportError:  # pragma: no cover - the file tools are part of nb_agent
        return text.replace("\r\n", "\n")


def _decode(raw: bytes) -> str:
    try:
        from nb_agent.tools.files.encoding import decode_bytes

        return decode_bytes(raw).text
    except ImportError:  # pragma: no cover
        return raw.decode("utf-8-sig", errors="replace")


def _read_state(session: ToolSession, path: Path) -> FileState | None:
    for key in _state_keys(path):
        if key in session.read_file_state:
            return session.read_file_state[key]
    return None


def record_notebook_read(session: ToolSession, path: Path, text: str) -> None:
    """Record that the model knows ``path`` as ``text`` (a full view)."""
    session.read_file_state[os.path.realpath(path)] = FileState(content=_normalize(text), timestamp=os.stat(path).st_mtime)


def _staleness(session: ToolSession, path: Path, text: str) -> str | None:
    state = _read_state(session, path)
    if state is None or state.is_partial_view:
        return NOT_READ_MESSAGE
    if state.offset is not None or state.limit is not None:
        return NOT_READ_MESSAGE
    return None if _normalize(text) == state.content else MODIFIED_MESSAGE


# --- notebook operations --------------------------------------------------------------------


def _load(text: str) -> Any:
    import nbformat

    try:
        return nbformat.reads(text, as_version=4)
    except Exception as exc:  # noqa: BLE001 - nbformat raises many kinds
        raise ToolError(f"The notebook is not valid JSON/nbformat: {exc}") from None


def find_cell(notebook: Any, cell_id: str) -> int:
    for index, cell in enumerate(notebook.cells):
        if cell.get("id") == cell_id:
            return index
    match = _INDEX_ID.match(cell_id)
    if match:
        index = int(match.group(1))
        if 0 <= index < len(notebook.cells):
            return index
        raise ToolError(f"Cell with index {index} does not exist in notebook (it has {len(notebook.cells)} cells).")
    raise ToolError(f'Cell with ID "{cell_id}" not found in notebook.')


def _cell_label(notebook: Any, index: int) -> str:
    return notebook.cells[index].get("id") or f"cell-{index}"


def _source(cell: Any) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else str(source)


def _new_cell(notebook: Any, cell_type: str, source: str) -> Any:
    import nbformat

    cell = nbformat.v4.new_code_cell(source) if cell_type == "code" else nbformat.v4.new_markdown_cell(source)
    if notebook.get("nbformat_minor", 0) < 5 or notebook.get("nbformat", 4) < 4:
        cell.pop("id", None)  # 4.4 and older notebooks have no cell ids
    return cell


def apply_edit(notebook: Any, input: NotebookEditInput) -> tuple[str | None, str | None]:
    """Edit ``notebook`` in place; returns ``(cell id or cell-N, cell type)``."""
    mode = input.edit_mode
    if mode == "move":
        return _move(notebook, input)
    if mode == "insert":
        assert input.cell_type is not None
        index = 0 if input.cell_id is None else find_cell(notebook, input.cell_id) + 1
        notebook.cells.insert(index, _new_cell(notebook, input.cell_type, input.new_source))
        return _cell_label(notebook, index), input.cell_type
    assert input.cell_id is not None
    index = find_cell(notebook, input.cell_id)
    label = _cell_label(notebook, index)
    if mode == "delete":
        cell = notebook.cells.pop(index)
        return label, cell.get("cell_type")
    cell = notebook.cells[index]
    target_type = input.cell_type or cell.get("cell_type", "code")
    if target_type != cell.get("cell_type"):
        replacement = _new_cell(notebook, target_type, input.new_source)
        if "id" in cell:
            replacement["id"] = cell["id"]
        replacement["metadata"] = cell.get("metadata", {})
        notebook.cells[index] = replacement
    else:
        cell["source"] = input.new_source
        if target_type == "code":
            cell["execution_count"] = None
            cell["outputs"] = []
    return label, target_type


def _move(notebook: Any, input: NotebookEditInput) -> tuple[str | None, str | None]:
    assert input.cell_id is not None
    index = find_cell(notebook, input.cell_id)
    label = _cell_label(notebook, index)
    target = input.before_cell_id or input.after_cell_id
    assert target is not None
    target_index = find_cell(notebook, target)  # cell-N counts in the notebook before the move
    if target_index == index:
        raise ToolError(f"Cell {label} cannot be moved next to itself; give another cell as the target.")
    anchor = notebook.cells[target_index]
    cell = notebook.cells.pop(index)
    at = next(i for i, c in enumerate(notebook.cells) if c is anchor)
    notebook.cells.insert(at if input.before_cell_id else at + 1, cell)
    return label, cell.get("cell_type")


def _moved_to(input: NotebookEditInput) -> str | None:
    if input.edit_mode != "move":
        return None
    return f"before cell {input.before_cell_id}" if input.before_cell_id else f"after cell {input.after_cell_id}"


def write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` via a temp file in the same directory and ``os.replace``."""
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        mode = None
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _serialize(notebook: Any) -> str:
    import nbformat

    try:
        nbformat.validate(notebook)
    except Exception as exc:  # noqa: BLE001
        raise ToolError(f"The edit would make the notebook invalid: {exc}") from None
    text = nbformat.writes(notebook)
    return text if text.endswith("\n") else text + "\n"


_PROMPT = """\
Completely replaces the contents of a specific cell in a Jupyter notebook (.ipynb file) with new source. Jupyter notebooks are interactive documents that combine code, text, and visualizations, commonly used for data analysis and scientific computing. The notebook_path parameter must be an absolute path, not a relative path. The cell_id is the ID of the cell to edit, as the Read tool shows it (cell-N, 0-based, for cells without an id). Use edit_mode=insert to add a new cell after the cell with cell_id (or at the beginning without cell_id); cell_type is then required. Use edit_mode=delete to delete the cell with cell_id. Use edit_mode=move to move the cell with cell_id (it keeps its id and outputs) right after the cell after_cell_id or right before the cell before_cell_id.
You must Read the notebook before editing it. Editing a code cell clears its outputs. To run code in the user's kernel use ExecuteCode instead."""


class NotebookEdit(Tool[NotebookEditInput]):
    name = "NotebookEdit"
    input_model = NotebookEditInput
    search_hint = "edit insert delete jupyter notebook cells ipynb"
    max_result_size_chars = 100_000
    shared_resource = "kernel"  # one at a time across parallel subagents

    def __init__(self, bridge: KernelBridge | None = None) -> None:
        self.bridge = bridge

    def prompt(self) -> str:
        return _PROMPT

    def _path(self, raw: str, cwd: Path) -> Path:
        expanded = os.path.expanduser(raw.strip())
        if not expanded:
            raise ToolError("The notebook path is empty.")
        if not os.path.isabs(expanded):
            expanded = os.path.join(os.fspath(cwd), expanded)
        return Path(os.path.normpath(expanded))

    def permission_rule_content(self, input: NotebookEditInput) -> str | None:
        if input._live is not None:  # one spelling for rules, whichever the model used
            return os.fspath(input._live.address.shown)
        return os.path.normpath(os.path.expanduser(input.notebook_path.strip())) or None

    def targets_local_file(self, input: NotebookEditInput) -> bool:
        return input._live is None

    async def validate_input(self, input: NotebookEditInput, ctx: ToolUseContext) -> ValidationResult:
        live = self.bridge.live() if self.bridge is not None else None
        input._live = live if live is not None and live.address.names(input.notebook_path, ctx.cwd) else None
        if input._live is None and (problem := self._file_problem(input.notebook_path, ctx.cwd)):
            return ValidationResult.failed(problem)
        if input.edit_mode == "insert" and input.cell_type is None:
            return ValidationResult.failed("Cell type is required when using edit_mode=insert.")
        if input.edit_mode != "insert" and not input.cell_id:
            return ValidationResult.failed("Cell ID must be specified when not inserting a new cell.")
        if input.edit_mode == "move" and (input.after_cell_id is None) == (input.before_cell_id is None):
            return ValidationResult.failed("With edit_mode=move, give exactly one of after_cell_id and before_cell_id.")
        if input.edit_mode != "move" and (input.after_cell_id is not None or input.before_cell_id is not None):
            return ValidationResult.failed("after_cell_id and before_cell_id are only for edit_mode=move.")
        return ValidationResult.passed()

    def _file_problem(self, raw: str, cwd: Path) -> str | None:
        try:
            path = self._path(raw, cwd)
        except ToolError as exc:
            return str(exc)
        if path.suffix.lower() != ".ipynb":
            return "File must be a Jupyter notebook (.ipynb file). For editing other file types, use the Edit tool."
        if not path.is_file():
            elsewhere = self.bridge.notebook_elsewhere(raw, cwd) if self.bridge is not None else None
            return elsewhere or f"Notebook file does not exist: {path}"
        return None

    async def change_preview(self, input: NotebookEditInput, ctx: ToolUseContext) -> CellChange | None:
        live = input._live
        if live is not None:
            document = live.document
            rows = [(cell.id, cell.cell_type, cell.source) for cell in document.cells]
            return notebook_change(input, notebook=live.shown_path(), rows=rows, resolve=lambda cell_id: document.index(document.cell(cell_id).id))
        path = self._path(input.notebook_path, ctx.cwd)
        notebook = await asyncio.to_thread(lambda: _load(_decode(path.read_bytes())))
        rows = [(_cell_label(notebook, i), str(cell.get("cell_type", "code")), _source(cell)) for i, cell in enumerate(notebook.cells)]
        return notebook_change(input, notebook=os.fspath(path), rows=rows, resolve=lambda cell_id: find_cell(notebook, cell_id))

    async def call(self, input: NotebookEditInput, ctx: ToolUseContext, on_progress: ProgressCallback) -> ToolResult:
        if input._live is not None:
            if self.bridge is None or self.bridge.live() is not input._live:
                raise ToolError(LIVE_GONE_MESSAGE)  # never the file: the call was allowed as an edit of the page
            # acceptEdits / bypassPermissions apply it without asking: the page marks it for review
            asked = ctx.permission_mode not in ("acceptEdits", "bypassPermissions")
            return ToolResult(data=await self._edit_live(input._live, input, asked=asked))
        path = self._path(input.notebook_path, ctx.cwd)
        result = await asyncio.to_thread(self._edit, path, input, ctx.session)
        return ToolResult(data=result)

    async def _edit_live(self, live: Any, input: NotebookEditInput, *, asked: bool) -> NotebookEditResult:
        from nb_agent.jupyter.live.run import LIVE_NOTE, UNCONFIRMED_NOTE

        cell_id, cell_type, record = await live.notebook_edit(
            cell_id=input.cell_id, new_source=input.new_source, cell_type=input.cell_type, edit_mode=input.edit_mode,
            after_cell_id=input.after_cell_id, before_cell_id=input.before_cell_id, asked=asked,
        )  # fmt: skip
        return NotebookEditResult(
            notebook_path=live.shown_path(),
            edit_mode=input.edit_mode,
            cell_id=cell_id,
            cell_type=cell_type,
            new_source=input.new_source,
            note=LIVE_NOTE if record.status == "applied" else UNCONFIRMED_NOTE,
            moved_to=_moved_to(input),
        )

    def _edit(self, path: Path, input: NotebookEditInput, session: ToolSession) -> NotebookEditResult:
        try:
            text = _decode(path.read_bytes())
        except OSError as exc:
            raise ToolError(f"Cannot read {path}: {exc.strerror}") from None
        if problem := _staleness(session, path, text):
            raise ToolError(problem)
        notebook = _load(text)
        cell_id, cell_type = apply_edit(notebook, input)
        new_text = _serialize(notebook)
        write_atomically(path, new_text)
        record_notebook_read(session, path, new_text)
        note = OPEN_NOTEBOOK_NOTE if self.bridge is not None and self.bridge.is_current_notebook(path) else None
        return NotebookEditResult(
            notebook_path=os.fspath(path),
            edit_mode=input.edit_mode,
            cell_id=cell_id,
            cell_type=cell_type,
            new_source=input.new_source,
            note=note,
            moved_to=_moved_to(input),
        )

    def map_result_to_block(self, data: Any, tool_use_id: str) -> str:
        if isinstance(data, NotebookEditResult):
            return data.to_text()
        return json.dumps(data, default=str) if not isinstance(data, str) else data
