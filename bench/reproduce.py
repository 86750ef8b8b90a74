"""The reproducibility check (issue 25): what it adds to the notebook's own run time, for a
50-cell notebook (target ≤ 3 s).

The check runs the notebook's code cells top to bottom in a fresh kernel in a process of its
own (:mod:`nb_agent.jupyter.reproduce`). The notebook's own run time is what its cells took in
that kernel (nbclient's per-cell timing, from the kernel's execute_input to its reply); the
overhead is the rest of the check's wall time: the runner process and its imports, the
fresh kernel's start and shutdown, the messages, the comparison and the report. The kernel's
start, the time between the cells (nbclient's messages) and the runner's own start and exit
are printed apart; so is the CPU time of the runner and the kernel (with the cells' own
work), which the machine's load does not inflate the way it does wall time. The cells do
typical light work (imports, arithmetic on lists, small functions, prints, a dict), so the
overhead is not hidden under long cells; ``--work-ms`` adds a busy loop of that length to
each cell.

    python bench/reproduce.py [--cells 50] [--rounds 3] [--work-ms 0]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import statistics
import tempfile
import time
from pathlib import Path

import nbformat

from nb_agent.jupyter.reproduce.check import reproduce


def cell_source(i: int, work_ms: int) -> str:
    kinds = [
        f"import math\nvalues_{i} = [math.sqrt(k) for k in range({i + 10})]\ntotal_{i} = sum(values_{i})",
        f"def step_{i}(x, scale={i}):\n    return x * scale + {i}\n\nresult_{i} = step_{i}({i})\nresult_{i}",
        f"table_{i} = {{'a': {i}, 'b': [{i}, {i + 1}]}}\ntable_{i}['c'] = table_{i}['a'] * 2",
        f"series_{i} = sorted(range({i % 11 + 5}), reverse=True)\nprint(f'mean {{sum(series_{i}) / len(series_{i}):.2f}}')",
    ]
    source = kinds[i % len(kinds)]
    if work_ms:  # first: the cell's last expression stays its output
        source = f"import time as _t\n_end = _t.perf_counter() + {work_ms / 1000}\nwhile _t.perf_counter() < _end:\n    pass\n" + source
    return source


def notebook(cells: int, work_ms: int) -> list[nbformat.NotebookNode]:
    found = []
    for i in range(cells):
        cell = nbformat.v4.new_code_cell(cell_source(i, work_ms), execution_count=i + 1)
        if i % 4 == 1:
            cell.outputs = [nbformat.v4.new_output("execute_result", data={"text/plain": "0"}, execution_count=i + 1)]
        elif i % 4 == 3:
            cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="mean 1.00\n")]
        found.append(cell)
    return found


async def one_check(cells: list[nbformat.NotebookNode], folder: Path) -> dict[str, float]:
    started, cpu = time.perf_counter(), _children_cpu()
    report = await reproduce(cells, cwd=folder, timeout=600)
    wall = time.perf_counter() - started
    cpu = _children_cpu() - cpu
    run = report.run
    assert run.problem is None and report.reproduces, report.text()
    own = sum(cell.get("seconds", 0.0) for cell in run.cells)
    return {
        "check, wall": wall,
        "cells' own run time": own,
        "overhead (wall - cells)": wall - own,
        "  kernel start": run.kernel_s,
        "  between the cells": run.total_s - run.kernel_s - own,
        "  runner start, exit, report": wall - run.total_s,
        "CPU of the runner and kernel": cpu,
    }


def _children_cpu() -> float:
    """User and system CPU of the waited-for child processes and theirs (the runner, and
    the fresh kernel the runner waited for)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cells", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--work-ms", type=int, default=0)
    args = parser.parse_args()
    cells = notebook(args.cells, args.work_ms)
    with tempfile.TemporaryDirectory(prefix="bench-reproduce-") as folder:
        rounds = [asyncio.run(one_check(cells, Path(folder))) for _ in range(args.rounds)]
    print(f"notebook: {args.cells} code cells, {args.work_ms} ms of extra work each; {args.rounds} checks")
    for label in rounds[0]:
        times = [figures[label] for figures in rounds]
        print(f"{label + ':':30s} median {statistics.median(times):6.2f} s, max {max(times):6.2f} s")
    print("target: overhead <= 3 s; load average (1, 5, 15 min): {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))


if __name__ == "__main__":
    main()
