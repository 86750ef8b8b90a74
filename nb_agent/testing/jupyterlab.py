"""A JupyterLab server for browser tests and benches: started on a free 127.0.0.1 port in a
scratch directory (its own settings, workspaces, config and runtime dirs), kernels reaching
nb_agent's fake Messages API server, stopped with :func:`stop_lab`."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jupyter_core.paths import jupyter_path

from nb_agent.testing.fake_server import FakeAnthropicServer

CHROMIUM = os.environ.get("NB_AGENT_CHROMIUM", "/usr/bin/chromium")
TOKEN = "nb-agent-browser-test"
SERVER_START_S = 90
KERNELS_SETTINGS = "@jupyterlab/apputils-extension/kernels-settings.jupyterlab-settings"


def free_port() -> int:
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
    rtc: bool = False
    gateway_url: str | None = None
    """Kernels run there (``--gateway-url``), not in the server."""

    def notebook(self, name: str, sources: list[str], outputs: list[list[dict[str, Any]]] | None = None) -> Path:
        """Write a notebook of code cells (with ``outputs`` per cell, if given) into the root."""
        import nbformat

        notebook = nbformat.v4.new_notebook()
        notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
        notebook.cells = [nbformat.v4.new_code_cell(source) for source in sources]
        for cell, cell_outputs in zip(notebook.cells, outputs or []):
            cell.outputs = [nbformat.from_dict(o) for o in cell_outputs]
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


SHIPPED_EXTENSION = Path(__file__).resolve().parent.parent / "jupyter" / "live" / "labextension"
"""The extension's bundle as the package ships it (built from labextension/)."""


def check_installed_extension() -> None:
    """Fail when the nb-agent-live extension JupyterLab would load is not the package's bundle:
    an editable install copies the bundle at install time, so a later rebuild (or a pull) is
    not what the browser runs until ``pip install -e .`` again, and a test then tries old code."""
    shipped = SHIPPED_EXTENSION / "static"
    installed = next((Path(p) / "nb-agent-live" / "static" for p in jupyter_path("labextensions") if (Path(p) / "nb-agent-live").is_dir()), None)
    if installed is None:
        raise RuntimeError("the nb-agent-live extension is not installed: pip install -e '.[test]'")
    if sorted(f.name for f in installed.iterdir()) != sorted(f.name for f in shipped.iterdir()):
        raise RuntimeError(f"JupyterLab would load an older nb-agent-live bundle ({installed}) than the package's ({shipped}): pip install -e '.[test]' again")


def start_lab(
    base: Path, server: FakeAnthropicServer, *, comms_over_subshells: str, rtc: bool = False, gateway_url: str | None = None
) -> Lab:
    """Start JupyterLab; real-time collaboration (jupyter-collaboration, installed with the
    ``test`` extra, which turns it on for every server) only when ``rtc`` is true; kernels
    from a gateway (:mod:`nb_agent.testing.gateway`) when ``gateway_url`` is given."""
    check_installed_extension()
    root, settings = base / "root", base / "settings"
    root.mkdir(parents=True)
    setting = settings / KERNELS_SETTINGS
    setting.parent.mkdir(parents=True)
    setting.write_text(json.dumps({"commsOverSubshells": comms_over_subshells}))
    port = free_port()
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
            f"--YDocExtension.disable_rtc={not rtc}",
            *([f"--gateway-url={gateway_url}"] if gateway_url else []),
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
    return Lab(url=url, root=root, server=server, process=process, log=log, rtc=rtc, gateway_url=gateway_url)


def stop_lab(lab: Lab) -> None:
    lab.process.terminate()
    try:
        lab.process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        lab.process.kill()
        lab.process.wait(timeout=5)




__all__ = ["CHROMIUM", "TOKEN", "Lab", "free_port", "start_lab", "stop_lab"]
