"""What the Bash sandbox costs per command: 100 × ``true`` and 100 × ``git status`` through
the Bash tool, unsandboxed and sandboxed (bubblewrap / sandbox-exec), interleaved in one run.

Usage: python bench/sandbox_overhead.py [N]
Prints, per command, the median and mean wall time per call on each side and the
milliseconds the sandbox adds (target: at most 15 ms), then the same for the bare process
start (``bash -c true`` against the exact sandbox command line, no tool around it), and
the load average, since a loaded machine stretches both. Runs in a scratch git repository.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from nb_agent.abort import AbortController
from nb_agent.tools.base import ToolSession, ToolUseContext
from nb_agent.tools.bash.sandbox import SandboxRuntime, SandboxSettings, probe_availability
from nb_agent.tools.bash.tool import BashInput, BashTool
from nb_agent.tools.services import ToolServices

COMMANDS = ("true", "git status")


class _Unclassified(BashTool):
    """Bash with the classifier answered by the bench (sandboxed or not), so both sides run the same command."""

    sandboxed = False

    def is_read_only(self, input: BashInput) -> bool:
        return self.sandboxed


async def _time_calls(tool: _Unclassified, ctx: ToolUseContext, command: str, n: int, *, sandboxed: bool) -> list[float]:
    tool.sandboxed = sandboxed
    times = []
    for _ in range(n):
        start = time.perf_counter()
        result = await tool.call(BashInput(command=command), ctx, lambda _: None)
        times.append((time.perf_counter() - start) * 1000)
        assert result.data.sandboxed is sandboxed and result.data.exit_code == 0, result.data
    return times


async def main(n: int) -> None:
    availability = probe_availability()
    if not availability.available:
        print(f"no sandbox here: {availability.reason} (fix: {availability.fix})")
        return
    with tempfile.TemporaryDirectory(prefix="nb_agent-bench-") as tmp:
        repo = Path(tmp) / "repo"
        repo.mkdir()
        subprocess.run(["git", "init", "-q", str(repo)], check=True)
        for i in range(50):
            (repo / f"f{i}.txt").write_text(f"{i}\n")
        runtime = SandboxRuntime(settings=SandboxSettings(), project_dir=repo)
        session = ToolSession(cwd=repo, session_dir=Path(tmp) / "session")
        ctx = ToolUseContext(abort_controller=AbortController(), session=session, services=ToolServices(sandbox=runtime))
        tool = _Unclassified()
        print(f"sandbox: {availability.describe()} · {n} calls per side, interleaved in blocks of 10")
        for command in COMMANDS:
            await _time_calls(tool, ctx, command, 5, sandboxed=False)  # warm-up both sides
            await _time_calls(tool, ctx, command, 5, sandboxed=True)
            plain: list[float] = []
            boxed: list[float] = []
            for _ in range(n // 10):
                plain += await _time_calls(tool, ctx, command, 10, sandboxed=False)
                boxed += await _time_calls(tool, ctx, command, 10, sandboxed=True)
            added = statistics.median(boxed) - statistics.median(plain)
            print(
                f"{command!r:14} via Bash tool: unsandboxed median {statistics.median(plain):6.1f} ms (mean {statistics.mean(plain):6.1f}) · "
                f"sandboxed median {statistics.median(boxed):6.1f} ms (mean {statistics.mean(boxed):6.1f}) · "
                f"added {added:5.1f} ms per command (target <= 15)"
            )
        _bare_start(runtime, repo, session.session_dir or repo, n)
        print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")


def _bare_start(runtime: SandboxRuntime, repo: Path, scratch: Path, n: int) -> None:
    """``bash -c true`` started directly, plain and inside the sandbox's exact argv."""
    scratch.mkdir(parents=True, exist_ok=True)
    plan = runtime.plan(cwd=repo, additional_directories=(), cwd_file=scratch / "bench.cwd")
    plain_argv = ["bash", "-c", "true"]
    boxed_argv = runtime.wrap(plan, plain_argv)
    plain: list[float] = []
    boxed: list[float] = []
    for _ in range(n // 10):
        for argv, times in ((plain_argv, plain), (boxed_argv, boxed)):
            for _ in range(10):
                start = time.perf_counter()
                subprocess.run(argv, check=True, start_new_session=True)  # noqa: S603
                times.append((time.perf_counter() - start) * 1000)
    added = statistics.median(boxed) - statistics.median(plain)
    print(
        f"{'bare start':14} bash -c true median {statistics.median(plain):6.1f} ms · in bwrap median "
        f"{statistics.median(boxed):6.1f} ms · added {added:5.1f} ms"
    )


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 100))
