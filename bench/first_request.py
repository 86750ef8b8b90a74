"""Time to the first model request of the first ``%%agent`` cell in a fresh kernel (issue 22:
target <= 1.0 s on an idle machine), before and after a change in the same run.

Each run starts a new kernel (this Python) whose model is nb_agent's fake Messages API
server, runs ``%load_ext nb_agent``, waits ``--gap`` seconds (the user writing the prompt;
0 sends the cell at once, as "Run All" does), then sends ``%%agent`` and measures from the
execute request to the moment the server receives the model request. Printed for each gap:
the median and max over the runs, the kernel's CPU time from ``%load_ext`` to that request
(user + system, from ``/proc``: what the machine's load changes least), and the load's own
time; and the machine's load average. Nothing is asserted.

nb_agent's bytecode is compiled before the runs (``compileall``, as ``pip install`` does),
since an environment with ``PYTHONDONTWRITEBYTECODE=1`` (this one) would otherwise compile
nb_agent's modules from source in every kernel, a cost a user's kernel pays once; ``--source``
measures that case (no bytecode, and kernels write none).

By default the bench runs twice through ``bench/compare.py``: on ``--before REV``'s nb_agent
(exported with ``git archive``, first on ``PYTHONPATH``, which the kernels inherit) and on
this tree's.

    python bench/first_request.py [--runs 5] [--gaps 0,3] [--before REV | --only after] [--source]
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from compare import main
from jupyter_client import KernelManager
from jupyter_client.kernelspec import KernelSpecManager

BASELINE = "be57111"
"""main when the bench got ``--before`` (issue 22, session 4)."""


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


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of process ``pid`` so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def one_run(workdir: Path, server: Any, gap: float, *, source: bool) -> tuple[float, float, float]:
    """``(seconds to the first request, kernel CPU seconds from %load_ext to it, %load_ext seconds)``."""
    from nb_agent.testing import Reply, text

    received: list[tuple[float, float]] = []
    km = kernel_manager(workdir)

    def answer(_request: dict[str, Any]) -> Reply:
        received.append((time.perf_counter(), cpu_seconds(km.provisioner.pid)))  # type: ignore[union-attr]
        return Reply(content=[text("Hello.")])

    server.script.add(answer)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "NB_AGENT_", "JPY_"))}
    env.update(ANTHROPIC_BASE_URL=server.base_url, ANTHROPIC_API_KEY="bench", NB_AGENT_TRUST_FILE=str(workdir / "trust.json"))
    if source:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    km.start_kernel(cwd=str(workdir), env=env)
    kc = km.client()
    kc.start_channels()
    try:
        kc.wait_for_ready(timeout=60)
        execute(kc, "1")  # the kernel's own first-cell costs are not ours
        cpu_before = cpu_seconds(km.provisioner.pid)  # type: ignore[union-attr]
        load = execute(kc, "%load_ext nb_agent")
        time.sleep(gap)
        started = time.perf_counter()
        execute(kc, "%%agent\nSay hello.")
        assert received, "the model was never called"
        return received[0][0] - started, received[0][1] - cpu_before, load
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def prepare_bytecode(package: Path, *, source: bool) -> None:
    for cache in package.rglob("__pycache__"):
        if source:
            shutil.rmtree(cache)
    if not source:
        compileall.compile_dir(str(package), quiet=1)


def measure(args: argparse.Namespace) -> dict[str, Any]:
    import nb_agent
    from nb_agent.testing import FakeAnthropicServer

    prepare_bytecode(Path(nb_agent.__file__).parent, source=args.source)
    gaps = [float(g) for g in args.gaps.split(",")]
    figures: dict[str, Any] = {"load average (1 min) at start": round(os.getloadavg()[0], 1)}
    with FakeAnthropicServer([]) as server, tempfile.TemporaryDirectory() as tmp:
        for gap in gaps:
            firsts, cpus, loads = [], [], []
            for index in range(args.runs):
                workdir = Path(tmp) / f"gap{gap}-{index}"
                workdir.mkdir()
                first, cpu, load = one_run(workdir, server, gap, source=args.source)
                firsts.append(first)
                cpus.append(cpu)
                loads.append(load)
            figures[f"gap {gap:g} s: first request, median (s)"] = round(statistics.median(firsts), 2)
            figures[f"gap {gap:g} s: first request, max (s)"] = round(max(firsts), 2)
            figures[f"gap {gap:g} s: kernel CPU %load_ext..request, median (s)"] = round(statistics.median(cpus), 2)
            figures[f"gap {gap:g} s: %load_ext, median (ms)"] = round(statistics.median(loads) * 1000)
    figures["load average (1 min) at end"] = round(os.getloadavg()[0], 1)
    figures["nb_agent bytecode"] = "none (from source)" if args.source else "compiled"
    return figures


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--gaps", default="0,3", help="seconds between %%load_ext and the %%agent cell, comma-separated")
    parser.add_argument("--source", action="store_true", help="no bytecode for nb_agent: kernels compile it from source")
    main(measure, parser, baseline=BASELINE, targets={"gap 0 s: first request, median (s)": "<= 1.0 s idle"})
