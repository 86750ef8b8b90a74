"""Edit latency through a Jupyter Kernel Gateway, beside a local kernel, in one run.

Two JupyterLabs on this machine: one with its own kernels, one with ``--gateway-url`` to a
real ``jupyter kernelgateway`` (nb_agent.testing.gateway: its own folder, JupyterLab's hidden
from it). In each, the kernel sends 50 live edits (a ``replace`` on the live comm, as
NotebookEdit does) and the page notes when each one's text is visible in its DOM
(bench/live_notebook.py's measure); printed: median and max per setup. Through the gateway
an edit travels kernel -> gateway -> Jupyter server -> browser, two websockets more.

    python bench/gateway_edit_latency.py
"""

from __future__ import annotations

import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the measure lives beside this script

from live_notebook import EDITS, edit_latency

from nb_agent.testing import FakeAnthropicServer
from nb_agent.testing.gateway import start_gateway, stop_gateway
from nb_agent.testing.jupyterlab import CHROMIUM, start_lab, stop_lab


def _measure(browser, lab) -> list[float]:
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    try:
        return edit_latency(page, lab)
    finally:
        page.close()


def _line(label: str, latencies: list[float]) -> str:
    return f"{label:<28} median {statistics.median(latencies):6.1f} ms, max {max(latencies):6.1f} ms"


def main() -> None:
    from playwright.sync_api import sync_playwright

    base = Path(tempfile.mkdtemp(prefix="nb-agent-bench-gateway-"))
    server = FakeAnthropicServer([]).start()
    gateway = start_gateway(base / "kg", server, hidden=[base / "remote-lab"])
    local = remote = None
    try:
        local = start_lab(base / "local-lab", server, comms_over_subshells="perCommTarget")
        remote = start_lab(base / "remote-lab", server, comms_over_subshells="perCommTarget", gateway_url=gateway.url)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
            figures = {"local kernel": _measure(browser, local), "through Kernel Gateway": _measure(browser, remote)}
            browser.close()
    finally:
        for lab in (local, remote):
            if lab is not None:
                stop_lab(lab)
        stop_gateway(gateway)
        server.stop()
    print(f"edit latency, kernel send -> visible in the page, {EDITS} edits each:")
    for label, latencies in figures.items():
        print(_line(label, latencies))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
