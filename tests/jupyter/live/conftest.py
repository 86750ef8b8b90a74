"""A fake live-notebook page connected to the module's kernel, and helpers to run
``%%agent`` cells the way JupyterLab does (snapshot first, then the execute request
with ``cellId`` in its metadata)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nbformat
import pytest

from nb_agent.testing.live_page import FakeLivePage, cell

ON_DISK = "x = 'saved on disk'"
UNSAVED = "x = 'typed by the user, not saved'"


def write_notebook(path: Path, cells: list[dict[str, Any]]) -> bytes:
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(c["source"]) for c in cells]
    for saved, live in zip(notebook.cells, cells):
        saved["id"] = live["id"]
    path.write_text(nbformat.writes(notebook))
    return path.read_bytes()


def tool_results(request: dict[str, Any]) -> list[str]:
    """The text of every tool_result in the request's last user message."""
    found = []
    for block in request["messages"][-1]["content"]:
        if isinstance(block, dict) and block.get("type") == "tool_result":
            inner = block.get("content")
            found.append(inner if isinstance(inner, str) else "\n".join(b.get("text", "") for b in inner or [] if b.get("type") == "text"))
    return found


class LiveCase:
    """One notebook file, one page on it, and the kernel."""

    def __init__(self, kernel: Any, name: str) -> None:
        self.kernel = kernel
        self.path = kernel.cwd / f"{name}.ipynb"
        self.agent_id = f"agent-{name}"
        self.cells = [
            cell("import math", id=f"{name}-a"),
            cell(ON_DISK, id=f"{name}-b"),
            cell("%%agent\nplaceholder", id=self.agent_id),
        ]
        self.saved = write_notebook(self.path, self.cells)
        self.cells[1]["source"] = UNSAVED  # the user typed after saving
        self.pages: list[FakeLivePage] = []

    def page(self, **kwargs: Any) -> FakeLivePage:
        page = FakeLivePage(self.kernel.kc, notebook_path=self.path.name, cells=json.loads(json.dumps(self.cells)), **kwargs)
        self.kernel.observers.append(page.feed)
        page.open()
        self.pages.append(page)
        return page

    def start_agent(self, page: FakeLivePage, prompt: str, options: str = "--permission-mode acceptEdits") -> Any:
        """Start the page's ``%%agent`` cell as JupyterLab would: snapshot, then the request."""
        source = f"%%agent {options}\n{prompt}"
        page.find(self.agent_id)["source"] = source
        page.before_agent_cell(self.agent_id)
        return self.kernel.start(source, metadata={"cellId": self.agent_id})

    def run_agent(self, page: FakeLivePage, prompt: str, *, timeout: float = 30, options: str = "--permission-mode acceptEdits") -> Any:
        """:meth:`start_agent` and wait for the cell to finish."""
        return self.kernel.wait(self.start_agent(page, prompt, options), timeout=timeout)

    def when_model_called(self, run: Any, times: int, start: int) -> None:
        """Wait until the model has been called ``times`` times since ``start`` requests."""
        self.kernel.wait_for(run, lambda: len(self.kernel.server.requests) >= start + times)

    def when_kernel_heard(self, run: Any, page: FakeLivePage) -> None:
        """Wait until the kernel has handled everything ``page`` sent so far."""
        asked = page.ask_heard()
        self.kernel.wait_for(run, lambda: page.heard(asked))

    def close(self) -> None:
        for page in self.pages:
            if page.feed in self.kernel.observers:
                self.kernel.observers.remove(page.feed)
            page._send("comm_close", {"comm_id": page.comm_id, "data": {}})


@pytest.fixture
def live_case(kernel: Any, request: pytest.FixtureRequest) -> Iterator[LiveCase]:
    case = LiveCase(kernel, request.node.name.replace("[", "_").replace("]", "")[:40])
    try:
        yield case
    finally:
        case.close()
