"""Browser end-to-end: a real JupyterLab (started here on a free 127.0.0.1 port, with the
nb-agent-live extension installed with the package) driven by Debian's chromium through
Playwright's Python package (``executable_path``; no browser is ever downloaded). The model
is nb_agent's fake Messages API server (``ANTHROPIC_BASE_URL`` in the kernels' environment).
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nbformat
import pytest

from nb_agent.testing import FakeAnthropicServer

CHROMIUM = os.environ.get("NB_AGENT_CHROMIUM", "/usr/bin/chromium")
TOKEN = "nb-agent-browser-test"
SERVER_START_S = 90
KERNELS_SETTINGS = "@jupyterlab/apputils-extension/kernels-settings.jupyterlab-settings"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class Lab:
    url: str
    root: Path
    server: FakeAnthropicServer
    process: subprocess.Popen[bytes]
    log: Path

    def notebook(self, name: str, sources: list[str]) -> Path:
        notebook = nbformat.v4.new_notebook()
        notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
        notebook.cells = [nbformat.v4.new_code_cell(source) for source in sources]
        path = self.root / name
        path.write_text(nbformat.writes(notebook))
        return path

    def open_url(self, name: str) -> str:
        return f"{self.url}/lab/tree/{name}?token={TOKEN}&reset"


def _wait_until_up(url: str, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + SERVER_START_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"JupyterLab exited: {log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(f"{url}/api/status?token={TOKEN}", timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.3)
    raise RuntimeError(f"JupyterLab did not start in {SERVER_START_S}s: {log.read_text()[-3000:]}")


def start_lab(base: Path, server: FakeAnthropicServer, *, comms_over_subshells: str) -> Lab:
    root, settings = base / "root", base / "settings"
    root.mkdir(parents=True)
    setting = settings / KERNELS_SETTINGS
    setting.parent.mkdir(parents=True)
    setting.write_text(json.dumps({"commsOverSubshells": comms_over_subshells}))
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "NB_AGENT_", "JPY_"))}
    env.update(
        ANTHROPIC_BASE_URL=server.base_url,
        ANTHROPIC_API_KEY="test",
        NB_AGENT_PERMISSION_MODE="acceptEdits",
        MPLBACKEND="agg",
        JUPYTERLAB_SETTINGS_DIR=str(settings),
        JUPYTERLAB_WORKSPACES_DIR=str(base / "workspaces"),
        JUPYTER_CONFIG_DIR=str(base / "config"),
        JUPYTER_RUNTIME_DIR=str(base / "runtime"),
        HOME=str(base / "home"),
    )
    log = base / "lab.log"
    process = subprocess.Popen(
        [
            sys.executable, "-m", "jupyterlab", "--no-browser", f"--port={port}", "--ServerApp.ip=127.0.0.1",
            f"--ServerApp.root_dir={root}", f"--IdentityProvider.token={TOKEN}",
            "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate", "--LabApp.news_url=", "--allow-root",
        ],  # fmt: skip
        cwd=root,
        env=env,
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_until_up(url, process, log)
    except BaseException:
        process.kill()
        raise
    return Lab(url=url, root=root, server=server, process=process, log=log)


def stop_lab(lab: Lab) -> None:
    lab.process.terminate()
    try:
        lab.process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        lab.process.kill()
        lab.process.wait(timeout=5)


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
