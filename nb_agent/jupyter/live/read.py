"""Read, with the notebook open in the browser read from the page rather than the file.

Everything else (other files, other notebooks, no live page) is the file tools' Read.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from nb_agent.errors import ToolError
from nb_agent.jupyter.live.run import LiveRun
from nb_agent.tools.base import ProgressCallback, ToolResult, ToolUseContext
from nb_agent.tools.files.notebook_view import render_notebook_dict
from nb_agent.tools.files.paths import expand_path
from nb_agent.tools.files.read import MAX_OUTPUT_CHARS, NotebookFileView, ReadInput, ReadTool


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


class LiveReadTool(ReadTool):
    """Read; the live notebook comes from the page (see the module docstring)."""

    def __init__(self, live: Callable[[], LiveRun | None]) -> None:
        self.live = live

    async def call(self, input: ReadInput, ctx: ToolUseContext, on_progress: ProgressCallback) -> ToolResult:
        run = self.live()
        path = expand_path(input.file_path, ctx.cwd)
        if run is None or not run.covers(path):
            return await super().call(input, ctx, on_progress)
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
        return ToolResult(data=NotebookFileView(file_path=os.fspath(path), blocks=blocks, num_cells=num_cells))


def with_live_read(tools: list[Any], live: Callable[[], LiveRun | None]) -> list[Any]:
    """``tools`` with the file tools' Read replaced by :class:`LiveReadTool`."""
    return [LiveReadTool(live) if type(tool) is ReadTool else tool for tool in tools]
