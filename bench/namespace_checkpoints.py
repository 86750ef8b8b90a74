"""Namespace checkpoints (issue 20): the time the per-call namespace checkpoint and diff add
to an ExecuteCode call, in an IPython shell holding 100 variables, among them a 1 GB pandas
DataFrame and a 200 MB NumPy array (targets: ≤ 20 ms median, and ≤ 5 % of a 1 s call).

Each kind of call runs ``--rounds`` times with the checkpoint and as many without
(ExecuteCode with and without its tracker, interleaved); the figure is the difference of
the medians, and the checkpoint's own time (before + after the code) is printed too. Changing the big frame
in place costs pandas a copy of the changed column (the checkpoint's snapshot shares it:
copy-on-write), counted in "added"; changing the big array in place costs a copy of it
(the code's syntax points at it), within the memory budget. Last, the rewind of a run of
one call of each kind.

    python bench/namespace_checkpoints.py [--rounds 15] [--frame-gb 1.0] [--array-mb 200]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
import warnings

import numpy as np
import pandas as pd

from nb_agent.checkpoints.namespace import NamespaceTracker, apply_plan, plan_rewind
from nb_agent.jupyter.tools import ExecuteCode, KernelBridge
from nb_agent.jupyter.user_namespace import user_variables
from nb_agent.testing.harness import tool_context

CALLS = {
    "reads the big frame (df.v0.mean())": "m = big_frame['v0'].mean()",
    "changes a small list and dict": "items.append(1)\nconfig['n'] = len(items)",
    "adds a column to the big frame": "big_frame['flag'] = True",
    "reads the big array (arr.sum())": "s = float(big_array[:1000].sum())",
    "changes a cell of the big frame in place": "big_frame.loc[0, 'v1'] = -1.0",
    "changes the big array in place": "big_array[0] += 1",
    "a 1 s call": "import time as _t\n_t.sleep(1)",
}


class Timed(NamespaceTracker):
    """The tracker, timing its own work (before and after the code)."""

    spent: list[float]

    def begin_call(self, variables, scan):  # type: ignore[no-untyped-def]
        started = time.perf_counter()
        try:
            return super().begin_call(variables, scan)
        finally:
            self.spent.append(time.perf_counter() - started)

    def end_call(self, pending, variables):  # type: ignore[no-untyped-def]
        started = time.perf_counter()
        try:
            return super().end_call(pending, variables)
        finally:
            self.spent[-1] += time.perf_counter() - started


def _namespace(frame_gb: float, array_mb: float) -> dict:
    columns = 16
    rows = int(frame_gb * 1e9 / 8 / columns)
    frame = pd.DataFrame({f"v{i}": np.random.default_rng(i).random(rows) for i in range(columns)})
    namespace = {"big_frame": frame, "big_array": np.ones(int(array_mb * 1e6 / 8)), "items": [1, 2, 3], "config": {"n": 3}}
    for i in range(96):
        kind = i % 6
        namespace[f"var{i}"] = (
            [i] * 50, {"k": i}, pd.DataFrame({"a": range(100)}), np.arange(1000), f"text {i}", float(i)
        )[kind]  # fmt: skip
    assert len(namespace) == 100
    return namespace


async def _call(tool: ExecuteCode, code: str) -> float:
    parsed = tool.parse_input({"code": code})
    started = time.perf_counter()
    await tool.call(parsed, tool_context([tool]), lambda _p: None)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--frame-gb", type=float, default=1.0)
    parser.add_argument("--array-mb", type=float, default=200.0)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    shell.user_ns.update(_namespace(args.frame_gb, args.array_mb))
    tracker = Timed()
    tracker.spent = []
    watched = ExecuteCode(KernelBridge(shell=shell, namespace=tracker))
    plain = ExecuteCode(KernelBridge(shell=shell))
    frame = shell.user_ns["big_frame"]
    print(f"namespace: 100 variables; big_frame {frame.memory_usage().sum() / 1e9:.2f} GB, big_array {shell.user_ns['big_array'].nbytes / 1e6:.0f} MB")
    for label, code in CALLS.items():
        rounds = 3 if "1 s" in label else args.rounds
        with_, without, own = [], [], []
        for _ in range(rounds):
            tracker.spent.clear()
            with_.append(asyncio.run(_call(watched, code)))
            own.append(tracker.spent[0])
            without.append(asyncio.run(_call(plain, code)))
        added = (statistics.median(with_) - statistics.median(without)) * 1000
        line = f"{label:<40} added {added:7.1f} ms (median of {rounds}); checkpoint itself median {statistics.median(own) * 1000:.1f} ms, max {max(own) * 1000:.1f} ms"
        if "1 s" in label:
            line += f"; {100 * statistics.median(own) / statistics.median(without):.2f} % of the call"
        print(line)
    print(f"memory held by the checkpoints at the end: {tracker.retained / 1e6:.1f} MB (budget {tracker.budget / 1e6:.0f} MB)")
    _rewind(shell)


def _rewind(shell) -> None:  # type: ignore[no-untyped-def]
    """A run of one call of each kind (the 1 s call left out), then the rewind of that run:
    planned (what changed since, what the user changed) and applied (names rebound, the big
    frame's column and cell and the big array's values put back in place)."""
    tracker = NamespaceTracker()
    tool = ExecuteCode(KernelBridge(shell=shell, namespace=tracker))
    tracker.start_run(1, user_variables(shell))
    since = tracker.next_number
    before = (list(shell.user_ns["big_frame"].columns), float(shell.user_ns["big_array"][0]))
    for label, code in CALLS.items():
        if "1 s" not in label:
            asyncio.run(_call(tool, code))
    tracker.end_run(user_variables(shell))
    started = time.perf_counter()
    plan = plan_rewind(tracker, since=since, run=1, now=dict(user_variables(shell)))
    planned = time.perf_counter() - started
    outcome = apply_plan(tracker, plan, shell.user_ns)
    done = time.perf_counter() - started
    after = (list(shell.user_ns["big_frame"].columns), float(shell.user_ns["big_array"][0]))
    assert after == before and not outcome.not_restored, (after, before, outcome)
    print(f"rewind of a run of {len(CALLS) - 1} calls ({len(plan.restore)} names put back): {done * 1000:.0f} ms (plan {planned * 1000:.0f} ms, apply {(done - planned) * 1000:.0f} ms)")


if __name__ == "__main__":
    main()
