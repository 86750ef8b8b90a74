"""Time to the first model request of the first ``%%agent`` cell in a fresh kernel (issue 22:
target <= 1.0 s on an idle machine).

Each run starts a new kernel (this Python) whose model is nb_agent's fake Messages API
server, runs ``%load_ext nb_agent``, waits ``--gap`` seconds (the user writing the prompt;
0 sends the cell at once), then sends ``%%agent`` and measures from the execute request to
the moment the server receives the model request. Printed: median and max over the runs,
for each gap, and the load's own time. Nothing is asserted.

    python bench/first_request.py [--runs 5] [--gaps 0,3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from jupyter_client import KernelManager
from jupyter_client.kernelspec import KernelSpecManager

from nb_agent.testing import FakeAnthropicServer, Reply, text


def kernel_manager(workdir: Path) -> KernelManager:
    spec_dir = workdir / "kernels" / "nb-agent-bench"
    spec_dir.mkdir(parents=True, exist_ok=True)
    argv = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    (spec_dir / "kernel.json").write_text(json.dumps({"argv": argv, "display_name": "bench", "language": "python"}))
    return KernelManager(kernel_name="nb-agent-bench", kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(spec_dir.parent)]))


def execute(kc: Any, code: str, timeout: float = 120) -> float:
    """Run ``code``; the seconds from the request to its reply."""
    started = time.perf_counter()
    msg_id = kc.execute(code)
    while kc.get_shell_msg(timeout=timeout)["parent_header"].get("msg_id") != msg_id:
        pass
    return time.perf_counter() - started


def one_run(workdir: Path, server: FakeAnthropicServer, gap: float) -> tuple[float, float]:
    received: list[float] = []

    def answer(_request: dict[str, Any]) -> Reply:
        received.append(time.perf_counter())
        return Reply(content=[text("Hello.")])

    server.script.add(answer)
    km = kernel_manager(workdir)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "NB_AGENT_", "JPY_"))}
    env.update(ANTHROPIC_BASE_URL=server.base_url, ANTHROPIC_API_KEY="bench", NB_AGENT_TRUST_FILE=str(workdir / "trust.json"))
    km.start_kernel(cwd=str(workdir), env=env)
    kc = km.client()
    kc.start_channels()
    try:
        kc.wait_for_ready(timeout=60)
        execute(kc, "1")  # the kernel's own first-cell costs are not ours
        load = execute(kc, "%load_ext nb_agent")
        time.sleep(gap)
        started = time.perf_counter()
        execute(kc, "%%agent\nSay hello.")
        assert received, "the model was never called"
        return received[0] - started, load
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--gaps", default="0,3", help="seconds between %%load_ext and the %%agent cell, comma-separated")
    args = parser.parse_args()
    gaps = [float(g) for g in args.gaps.split(",")]
    with FakeAnthropicServer([]) as server, tempfile.TemporaryDirectory() as tmp:
        for gap in gaps:
            firsts, loads = [], []
            for index in range(args.runs):
                workdir = Path(tmp) / f"gap{gap}-{index}"
                workdir.mkdir()
                first, load = one_run(workdir, server, gap)
                firsts.append(first)
                loads.append(load)
            print(f"first %%agent in a fresh kernel, {gap:g} s after %load_ext ({args.runs} kernels):")
            print(f"  execute request to first model request: median {statistics.median(firsts):.2f} s, max {max(firsts):.2f} s (target <= 1.0 s idle)")
            print(f"  %load_ext itself: median {statistics.median(loads) * 1000:.0f} ms, max {max(loads) * 1000:.0f} ms")
    print(f"machine load average (1 min): {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
