"""A real Jupyter Kernel Gateway for browser tests and benches, standing for a kernel on
another machine than the Jupyter server: started in a folder of its own, on a free
127.0.0.1 port, inside bubblewrap, which hides the JupyterLab's folders from it (a tmpfs over
each) and mounts its own folder read-only (as a kernel image's). Its kernels reach nb_agent's
fake Messages API server; JupyterLab uses it with ``--gateway-url`` (:func:`start_lab`).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from nb_agent.testing.fake_server import FakeAnthropicServer
from nb_agent.testing.jupyterlab import free_port

GATEWAY_START_S = 90
KERNEL_ENV = ("ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY", "MPLBACKEND", "HOME", "NB_AGENT_TRUST_FILE", "PYTHONUNBUFFERED", "PYTHONPATH")
"""What the gateway passes on to its kernels (``KG_ENV_PROCESS_WHITELIST``): it gives them
no other variable of its own environment (``PYTHONPATH``: a test run's import path, if it has one)."""


@dataclass
class Gateway:
    url: str
    folder: Path
    """The gateway's (and its kernels') working folder: read-only for them."""
    home: Path
    """The kernels' home folder (writable): sessions go there."""
    process: subprocess.Popen[bytes]
    log: Path


def _wait_until_up(url: str, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + GATEWAY_START_S  # a generous bound: the gateway's start on a loaded machine
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the kernel gateway exited: {log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(f"{url}/api", timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.3)
    raise RuntimeError(f"the kernel gateway did not start in {GATEWAY_START_S}s: {log.read_text()[-3000:]}")


def start_gateway(base: Path, server: FakeAnthropicServer, *, hidden: Sequence[Path]) -> Gateway:
    """Start ``jupyter kernelgateway`` in ``base/gateway``; ``hidden``: folders its kernels
    must not see (the JupyterLab's: its root, where the notebook is). ``base`` must be outside them."""
    folder, home = base / "gateway", base / "home"
    folder.mkdir(parents=True)
    home.mkdir()
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "NB_AGENT_", "JPY_", "KG_"))}
    env.update(
        ANTHROPIC_BASE_URL=server.base_url,
        ANTHROPIC_API_KEY="test",
        MPLBACKEND="agg",
        HOME=str(home),
        NB_AGENT_TRUST_FILE=str(home / "trusted_folders.json"),
        PYTHONUNBUFFERED="1",
        KG_ENV_PROCESS_WHITELIST=",".join(KERNEL_ENV),
    )
    sandbox = ["bwrap", "--dev-bind", "/", "/", "--die-with-parent"]
    for path in hidden:
        sandbox += ["--tmpfs", str(path)]
    sandbox += ["--ro-bind", str(folder), str(folder), "--chdir", str(folder)]
    log = base / "gateway.log"
    process = subprocess.Popen(
        [
            *sandbox, sys.executable, "-m", "kernel_gateway", f"--KernelGatewayApp.port={port}", "--KernelGatewayApp.ip=127.0.0.1",
            "--JupyterWebsocketPersonality.list_kernels=True",  # JupyterLab lists the kernels (its /api/status asks the gateway)
        ],  # fmt: skip
        cwd=folder,
        env=env,
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_until_up(url, process, log)
    except BaseException:
        os.killpg(process.pid, signal.SIGKILL)
        raise
    return Gateway(url=url, folder=folder, home=home, process=process, log=log)


def stop_gateway(gateway: Gateway) -> None:
    """Stop the gateway (it shuts its kernels down), then anything left of its process group."""
    gateway.process.send_signal(signal.SIGTERM)
    try:
        gateway.process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        pass
    try:
        os.killpg(gateway.process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    gateway.process.wait(timeout=5)


__all__ = ["Gateway", "start_gateway", "stop_gateway"]
