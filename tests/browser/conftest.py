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

from nb_agent.testing import FakeAnthropicServer, Script
from nb_agent.testing.jupyterlab import CHROMIUM, Lab, start_lab, stop_lab


@pytest.fixture(scope="module")
def model_server() -> Iterator[FakeAnthropicServer]:
    server = FakeAnthropicServer([]).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(autouse=True)
def fresh_script(model_server: FakeAnthropicServer) -> Iterator[None]:
    """Each test scripts the model from nothing: a test that fails half way leaves turns
    unused, and the next test's run would take them (one failure became four in CI)."""
    model_server.script = Script()
    yield


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


def make_lab(tmp_path_factory: pytest.TempPathFactory, model_server: FakeAnthropicServer, mode: str, *, rtc: bool = False) -> Iterator[Lab]:
    lab = start_lab(tmp_path_factory.mktemp(f"lab-{mode}{'-rtc' if rtc else ''}"), model_server, comms_over_subshells=mode, rtc=rtc)
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


@pytest.fixture(scope="module")
def lab_rtc(tmp_path_factory: pytest.TempPathFactory, model_server: FakeAnthropicServer) -> Iterator[Lab]:
    """JupyterLab with real-time collaboration on (jupyter-collaboration); the others have it off."""
    yield from make_lab(tmp_path_factory, model_server, "perCommTarget", rtc=True)


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
        collaborative = self.js("return live.panel.context.model.collaborative;")
        assert collaborative is self.lab.rtc, f"real-time collaboration is {'on' if collaborative else 'off'} in this page"
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

    def wait_kernel_heard(self) -> None:
        """Until the kernel has handled what this page sent so far: the page's pending change
        report goes out, then a card check, which the kernel answers after everything the
        page's channel sent before it (it handles a comm's messages in order)."""
        self.wait_js("return live.changeTimer === null;")
        assert self.js("return live.vouch(`heard-${Date.now()}-${Math.random()}`).then(() => true);") is True

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

    def trust(self) -> None:
        """Trust the notebook as a user would: command palette, "Trust Notebook", confirm."""
        self.command_mode()
        self.page.keyboard.press("Control+Shift+C")
        self.page.keyboard.type("Trust Notebook")
        self.page.keyboard.press("Enter")
        self.page.locator(".jp-Dialog .jp-mod-accept").click()
        self.wait_js("return [...live.panel.model.cells].every(c => c.trusted);")

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


@pytest.fixture
def two_users(browser: Any) -> Iterator[Any]:
    """``open(lab, name)``: the notebook in two browser contexts (two users, or two windows),
    nb_agent loaded from the first one's cell 0; returns the two pages."""
    contexts: list[Any] = []

    def open_twice(lab: Lab, name: str) -> tuple[NotebookPage, NotebookPage]:
        contexts.extend(browser.new_context(viewport={"width": 1200, "height": 900}) for _ in range(2))
        first = NotebookPage(contexts[0].new_page(), lab, name).open()
        second = NotebookPage(contexts[1].new_page(), lab, name).open()
        first.focus()
        first.run(0)
        first.wait_executed(0)
        return first, second

    try:
        yield open_twice
    finally:
        for context in contexts:
            context.close()
