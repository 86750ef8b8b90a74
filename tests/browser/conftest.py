"""Browser end-to-end: a real JupyterLab (started here on a free 127.0.0.1 port, with the
nb-agent-live extension installed with the package) driven by Debian's chromium through
Playwright's Python package (``executable_path``; no browser is ever downloaded). The model
is nb_agent's fake Messages API server (``ANTHROPIC_BASE_URL`` in the kernels' environment).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from nb_agent.testing import FakeAnthropicServer
from nb_agent.testing.jupyterlab import CHROMIUM, Lab, start_lab, stop_lab

@pytest.fixture(scope="module")
def model_server() -> Iterator[FakeAnthropicServer]:
    server = FakeAnthropicServer([]).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: apt-get install -y chromium (.ci/run does it)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
        try:
            yield instance
        finally:
            instance.close()


def make_lab(tmp_path_factory: pytest.TempPathFactory, model_server: FakeAnthropicServer, mode: str) -> Iterator[Lab]:
    lab = start_lab(tmp_path_factory.mktemp(f"lab-{mode}"), model_server, comms_over_subshells=mode)
    try:
        yield lab
    finally:
        stop_lab(lab)
        shutil.rmtree(lab.root / ".nb_agent", ignore_errors=True)


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory, model_server: FakeAnthropicServer) -> Iterator[Lab]:
    """JupyterLab with its default ``commsOverSubshells: perCommTarget``."""
    yield from make_lab(tmp_path_factory, model_server, "perCommTarget")


@pytest.fixture(scope="module")
def lab_without_subshells(tmp_path_factory: pytest.TempPathFactory, model_server: FakeAnthropicServer) -> Iterator[Lab]:
    """JupyterLab with ``commsOverSubshells: disabled`` (comm messages on the main shell)."""
    yield from make_lab(tmp_path_factory, model_server, "disabled")


PAGE_JS = "name => window.nbAgentLive && [...window.nbAgentLive.pages.values()].find(p => p.panel.context.path === name)"


class NotebookPage:
    """One browser page showing one notebook, driven by keyboard and mouse like a user."""

    def __init__(self, page: Any, lab: Lab, name: str) -> None:
        self.page, self.lab, self.name = page, lab, name

    def js(self, body: str, arg: Any = None) -> Any:
        """Evaluate ``body`` with ``live`` bound to this notebook's LivePage."""
        return self.page.evaluate(f"([name, arg]) => {{ const live = ({PAGE_JS})(name); {body} }}", [self.name, arg])

    def wait_js(self, body: str, arg: Any = None, timeout: float = 120) -> None:
        self.page.wait_for_function(
            f"([name, arg]) => {{ const live = ({PAGE_JS})(name); if (!live) return false; {body} }}",
            arg=[self.name, arg],
            timeout=timeout * 1000,
        )

    def open(self) -> NotebookPage:
        self.page.goto(self.lab.open_url(self.name))
        self.wait_js("const k = live.panel.sessionContext.session?.kernel; return !!k && k.status === 'idle' && !!live.panel.model;")
        return self

    def focus(self) -> None:
        self.page.bring_to_front()

    # --- the document ------------------------------------------------------------------------
    def ids(self) -> list[str]:
        return self.js("return live.panel.model.sharedModel.cells.map(c => c.getId());")

    def sources(self) -> list[str]:
        return self.js("return live.panel.model.sharedModel.cells.map(c => c.getSource());")

    def cell_types(self) -> list[str]:
        return self.js("return live.panel.model.sharedModel.cells.map(c => c.cell_type);")

    def shown_sources(self) -> list[str]:
        """What the page displays in each cell's editor (or rendered markdown)."""
        return self.page.eval_on_selector_all(
            f"#{self.panel_id()} .jp-Cell",
            "cells => cells.map(c => (c.querySelector('.cm-content') || c.querySelector('.jp-RenderedMarkdown') || c).innerText)",
        )

    def panel_id(self) -> str:
        return self.js("return live.panel.id;")

    def applied(self) -> list[str]:
        return self.js("return [...live.applied];")

    def dirty(self) -> bool:
        return self.js("return live.panel.model.dirty;")

    # --- acting like a user --------------------------------------------------------------------
    def cell(self, index: int) -> Any:
        return self.page.locator(f"#{self.panel_id()} .jp-Cell").nth(index)

    def type_into(self, index: int, text: str) -> None:
        editor = self.cell(index).locator(".cm-content")
        editor.click()
        self.page.keyboard.press("Control+End")
        self.page.keyboard.type(text)

    def command_mode(self) -> None:
        self.page.keyboard.press("Escape")

    def run(self, index: int) -> None:
        """Select cell ``index`` and press Shift+Enter, as a user would."""
        self.cell(index).locator(".jp-InputPrompt").click()
        self.page.keyboard.press("Shift+Enter")

    def wait_executed(self, index: int, timeout: float = 180) -> None:
        self.wait_js(
            "const m = live.panel.model.cells.get(arg); return m.executionCount !== null && m.executionState !== 'running';",
            index,
            timeout,
        )

    def save(self) -> None:
        self.page.keyboard.press("Control+s")
        self.wait_js("return !live.panel.model.dirty;")

    def dialogs(self) -> list[str]:
        return self.page.eval_on_selector_all(".jp-Dialog", "ds => ds.map(d => d.innerText)")


@pytest.fixture
def new_page(browser: Any) -> Iterator[Any]:
    """Pages in a fresh browser context (closed after the test)."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        yield context.new_page
    finally:
        context.close()
