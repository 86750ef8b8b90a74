"""Read, with the notebook open in the browser read from the page rather than the file.

A path names the open notebook by the page's address of it (:mod:`nb_agent.jupyter.live.address`),
whether or not a file exists there on the kernel's machine; that is decided once, in
``validate_input``, so a read allowed as a read of the page never reads a file here.
Everything else (other files, other notebooks, no live page) is the file tools' Read.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import PrivateAttr

from nb_agent.errors import ToolError
from nb_agent.jupyter.live.run import LiveRun
from nb_agent.tools.base import ProgressCallback, ToolResult, ToolUseContext, ValidationResult
from nb_agent.tools.files.notebook_view import render_notebook_dict
from nb_agent.tools.files.read import MAX_OUTPUT_CHARS, NotebookFileView, ReadInput, ReadTool

LIVE_GONE_READ = (
    "The notebook's page is no longer connected to this run (the run ended, or the page went away). "
    "Read it again once it is open in JupyterLab."
)


def live_heading(run: LiveRun) -> str:
    document = run.document
    lines = [
        "This is the live notebook open in the user's browser (unsaved edits included); "
        "NotebookEdit changes it in place by cell id."
    ]
    if document.executing_cell_id:
        above, below = document.neighbours()
        where = f"The %%agent cell running now is {document.executing_cell_id}"
        where += f"; the cell above it is {above}" if above else "; it is the first cell"
        where += f", the cell below it is {below}." if below else "."
        lines.append(where)
    if document.editing_cell_id:
        lines.append(f"The user is typing in cell {document.editing_cell_id}.")
    if document.snapshot.omitted_outputs:
        lines.append(f"{document.snapshot.omitted_outputs} large outputs were left out.")
    return "\n".join(lines) + "\n"


class LiveReadInput(ReadInput):
    _live: Any = PrivateAttr(default=None)
    """The live run whose open notebook ``file_path`` names (set by ``validate_input``)."""


class LiveReadTool(ReadTool):
    """Read; the live notebook comes from the page (see the module docstring)."""

    input_model = LiveReadInput

    def __init__(self, live: Callable[[], LiveRun | None], elsewhere: Callable[[str, Path], str | None] = lambda raw, cwd: None) -> None:
        self.live = live
        self.elsewhere = elsewhere
        """``(path as written, cwd)`` for a path that is no file here: the message saying it is
        the user's notebook on the Jupyter server (or ``None``)."""

    def targets_local_file(self, input: ReadInput) -> bool:
        return getattr(input, "_live", None) is None

    async def validate_input(self, input: ReadInput, ctx: ToolUseContext) -> ValidationResult:
        live = self.live()
        if isinstance(input, LiveReadInput) and live is not None and live.address.names(input.file_path, ctx.cwd):
            input._live = live
            input._resolved_path = live.shown_path()  # one spelling for rules, whichever the model used
            return ValidationResult.passed()
        result = await super().validate_input(input, ctx)
        if result.ok and input._resolved_path is not None and not os.path.lexists(input._resolved_path):
            if elsewhere := self.elsewhere(input.file_path, ctx.cwd):
                return ValidationResult.failed(elsewhere)
        return result

    async def call(self, input: ReadInput, ctx: ToolUseContext, on_progress: ProgressCallback) -> ToolResult:
        run = getattr(input, "_live", None)
        if run is None:
            return await super().call(input, ctx, on_progress)
        if self.live() is not run:
            raise ToolError(LIVE_GONE_READ)  # never the file: the call was allowed as a read of the page
        await run.refresh()
        document = run.document
        blocks, num_cells = render_notebook_dict(document.as_notebook(), heading=live_heading(run))
        text_chars = sum(len(b.get("text", "")) for b in blocks)
        if text_chars > MAX_OUTPUT_CHARS:
            raise ToolError(
                f"Notebook content ({text_chars:,} characters) exceeds the maximum of {MAX_OUTPUT_CHARS:,}. "
                "Inspect specific cells with ExecuteCode, or ask the user to clear large outputs."
            )
        document.mark_read()
        return ToolResult(data=NotebookFileView(file_path=run.shown_path(), blocks=blocks, num_cells=num_cells))


def with_live_read(
    tools: list[Any], live: Callable[[], LiveRun | None], elsewhere: Callable[[str, Path], str | None] = lambda raw, cwd: None
) -> list[Any]:
    """``tools`` with the file tools' Read replaced by :class:`LiveReadTool`."""
    return [LiveReadTool(live, elsewhere) if type(tool) is ReadTool else tool for tool in tools]
