"""Time from ``%load_ext nb_agent`` to ready, in fresh kernels (target <= 0.5 s).

Each run starts a new kernel (this Python), then times ``%load_ext nb_agent`` twice:
inside the kernel (``time.perf_counter`` around the magic) and from the frontend (the
execute request until its reply). Also lists which heavy modules the load imported
(none expected). Figures are printed; nothing is asserted.

    python bench/load_ext_time.py [--runs 5]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from jupyter_client import KernelManager
from jupyter_client.kernelspec import KernelSpecManager

HEAVY = ("anthropic", "ipywidgets", "markdown_it", "nb_agent.engine", "pandas", "matplotlib")
CODE = (
    "import sys, time\n"
    "_t = time.perf_counter()\n"
    "get_ipython().run_line_magic('load_ext', 'nb_agent')\n"
    "_elapsed = time.perf_counter() - _t\n"
    f"print(_elapsed, [m for m in {HEAVY!r} if m in sys.modules])"
)


def kernel_manager(workdir: Path) -> KernelManager:
    spec_dir = workdir / "kernels" / "nb-agent-bench"
    spec_dir.mkdir(parents=True, exist_ok=True)
    argv = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    (spec_dir / "kernel.json").write_text(json.dumps({"argv": argv, "display_name": "bench", "language": "python"}))
    return KernelManager(kernel_name="nb-agent-bench", kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(spec_dir.parent)]))


def execute(kc: Any, code: str) -> tuple[str, float]:
    started = time.perf_counter()
    msg_id = kc.execute(code)
    out = []
    while True:
        message = kc.get_iopub_msg(timeout=60)
        if message["parent_header"].get("msg_id") != msg_id:
            continue
        if message["msg_type"] == "stream":
            out.append(message["content"]["text"])
        if message["msg_type"] == "status" and message["content"]["execution_state"] == "idle":
            break
    while kc.get_shell_msg(timeout=60)["parent_header"].get("msg_id") != msg_id:
        pass
    return "".join(out), time.perf_counter() - started


def one_run(workdir: Path) -> tuple[float, float, str]:
    km = kernel_manager(workdir)
    km.start_kernel(cwd=str(workdir))
    kc = km.client()
    kc.start_channels()
    try:
        kc.wait_for_ready(timeout=60)
        execute(kc, "1")  # the kernel's own first-cell costs are not ours
        out, roundtrip = execute(kc, CODE)
        inside, imported = out.strip().split(" ", 1)
        return float(inside), roundtrip, imported
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    inside: list[float] = []
    roundtrips: list[float] = []
    imported = ""
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(args.runs):
            a, b, imported = one_run(Path(tmp))
            inside.append(a)
            roundtrips.append(b)
    print(f"%load_ext nb_agent in a fresh kernel, {args.runs} kernels:")
    print(f"  inside the kernel: median {statistics.median(inside) * 1000:.1f} ms, max {max(inside) * 1000:.1f} ms")
    print(f"  request to reply:  median {statistics.median(roundtrips) * 1000:.1f} ms, max {max(roundtrips) * 1000:.1f} ms")
    print(f"  heavy modules imported by the load: {imported}  (target: none; load <= 500 ms)")


if __name__ == "__main__":
    main()
