"""Stop during a hook: how long from Stop to the end of the run (issue 11 target: < 1 s).

Each run starts a session whose PreToolUse hook never finishes by itself (a command hook
that backgrounds ``sleep 60`` and waits for it, or a Python hook that sleeps), presses Stop
as soon as the hook is running, and measures Stop → the run's result. Prints the median,
95th percentile and maximum per hook kind, and whether any hook child outlived Stop.

    python bench/hook_stop.py [--runs 20]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from nb_agent.engine import EngineConfig, QueryEngine
from nb_agent.hooks import HookOutput, Hooks
from nb_agent.testing import Reply, ScriptedTransport, text, tool_use
from nb_agent.testing.collect import collect
from nb_agent.testing.processes import process_alive
from nb_agent.testing.tools import RecordingTool


def _hooks(kind: str, marker: Path) -> Hooks:
    if kind == "command":
        command = f"sleep 60 & echo $! > {marker}; wait"
        hooks, _ = Hooks.from_settings({"PreToolUse": [{"hooks": [{"type": "command", "command": command, "timeout": 60}]}]})
        return hooks

    async def slow(hook_input):
        marker.write_text("python")
        await asyncio.sleep(60)
        return HookOutput(permission_decision="allow")

    hooks = Hooks()
    hooks.add("PreToolUse", slow, timeout=60)
    return hooks


async def _one(kind: str, root: Path) -> tuple[float, bool]:
    marker = root / "marker"
    turns = [Reply(content=[tool_use("Echo", {"value": "x"})]), Reply(content=[text("done")])]
    engine = QueryEngine(config=EngineConfig(cwd=root), tools=[RecordingTool("Echo")], transport=ScriptedTransport(turns), hooks=_hooks(kind, marker))
    run = asyncio.ensure_future(collect(engine, "go"))
    while not marker.exists() or not marker.read_text().strip():
        await asyncio.sleep(0.005)
    stopped = time.monotonic()
    engine.interrupt()
    await run
    elapsed = time.monotonic() - stopped
    survived = kind == "command" and process_alive(int(marker.read_text()))
    return elapsed, survived


async def main(runs: int) -> None:
    for kind in ("command", "python"):
        times, survivors = [], 0
        for _ in range(runs):
            with tempfile.TemporaryDirectory() as tmp:
                elapsed, survived = await _one(kind, Path(tmp))
            times.append(elapsed)
            survivors += survived
        times.sort()
        p95 = times[min(len(times) - 1, int(0.95 * len(times)))]
        print(f"{kind:8} hook: Stop -> end  median {statistics.median(times) * 1000:.1f} ms  p95 {p95 * 1000:.1f} ms  "
              f"max {times[-1] * 1000:.1f} ms  ({runs} runs; children alive after Stop: {survivors})")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    asyncio.run(main(parser.parse_args().runs))
