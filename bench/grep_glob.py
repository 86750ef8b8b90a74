"""Grep and Glob overhead versus running ripgrep directly.

Builds a 50,000-file tree (small files, realistic nesting, a handful of matches) in a
temporary directory, then times, interleaved and repeated:

- Grep ``files_with_matches`` and ``content`` through ``GrepTool.call`` versus
  ``rg`` run as a subprocess with the same arguments (``build_rg_args``);
- Glob through ``GlobTool.call`` versus ``rg --files -g`` with the same arguments, and
  versus ``rg --files -g … --sortr=modified`` (the same newest-first order the tool returns;
  Claude Code's Glob sorts this way).

Prints the median of each and the ratio tool / rg (target: at most 1.3).

    python bench/grep_glob.py [--files 50000] [--reps 9]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import subprocess
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from nb_agent.abort import AbortController
from nb_agent.tools.base import ToolSession, ToolUseContext
from nb_agent.tools.files import GlobTool, GrepTool
from nb_agent.tools.files.glob import build_rg_args as glob_rg_args
from nb_agent.tools.files.grep import build_rg_args as grep_rg_args
from nb_agent.tools.files.ripgrep import rg_executable

NEEDLE = "NEEDLE_7f3a"
EXTENSIONS = (".py", ".py", ".py", ".js", ".ts", ".md", ".json", ".txt", ".yaml", ".csv")


def build_tree(root: Path, n_files: int, n_matches: int = 12, seed: int = 7) -> None:
    """``n_files`` small files under ``root``: packages / modules / files, a few with NEEDLE."""
    rng = random.Random(seed)
    body_lines = [f"def function_{i}(arg):\n    return arg * {i}  # some ordinary code\n" for i in range(40)]
    matches = set(rng.sample(range(n_files), n_matches))
    per_leaf = 50
    for index in range(n_files):
        leaf = index // per_leaf
        directory = root / f"pkg_{leaf // 40:02}" / f"module_{leaf // 8 % 5}" / f"part_{leaf:04}"
        if index % per_leaf == 0:
            directory.mkdir(parents=True, exist_ok=True)
        text = "".join(rng.sample(body_lines, 6))
        if index in matches:
            text += f"value = '{NEEDLE}'\n"
        (directory / f"file_{index:05}{EXTENSIONS[index % len(EXTENSIONS)]}").write_text(text)


async def time_async(fn: Callable[[], Awaitable[object]]) -> float:
    start = time.perf_counter()
    await fn()
    return time.perf_counter() - start


def time_rg(args: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    done = subprocess.run([rg_executable(), *args], cwd=cwd, capture_output=True, check=False)
    elapsed = time.perf_counter() - start
    assert done.returncode in (0, 1), done.stderr
    return elapsed


async def bench(root: Path, reps: int) -> list[tuple[str, float, float]]:
    ctx = ToolUseContext(abort_controller=AbortController(), session=ToolSession(cwd=root))
    grep, glob = GrepTool(), GlobTool()
    cases = []
    for mode in ("files_with_matches", "content"):
        parsed = grep.parse_input({"pattern": NEEDLE, "output_mode": mode})
        args = grep_rg_args(parsed, str(root))
        cases.append((f"Grep {mode}", parsed, grep, args))
    # Informational: a pattern in ~1 file of 7, so the newest-first sort stats ~7,000 files.
    broad = grep.parse_input({"pattern": r"function_12\b"})
    cases.append(("Grep files_with_matches (broad)", broad, grep, grep_rg_args(broad, str(root))))
    for pattern in ("**/*.py", "**/part_01*/*.md"):
        parsed = glob.parse_input({"pattern": pattern})
        cases.append((f"Glob {pattern}", parsed, glob, glob_rg_args(pattern)))
        cases.append((f"Glob {pattern} vs rg --sortr", parsed, glob, [*glob_rg_args(pattern), "--sortr=modified"]))

    results = []
    for name, parsed, tool, args in cases:
        assert (await tool.validate_input(parsed, ctx)).ok
        # One warm-up of each, then interleave so drift (cache, CPU) hits both alike.
        await tool.call(parsed, ctx, lambda _: None)
        time_rg(args, root)
        tool_times, rg_times = [], []
        for _ in range(reps):
            tool_times.append(await time_async(lambda: tool.call(parsed, ctx, lambda _: None)))  # noqa: B023
            rg_times.append(time_rg(args, root))
        results.append((name, statistics.median(tool_times), statistics.median(rg_times)))
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", type=int, default=50_000)
    parser.add_argument("--reps", type=int, default=9)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="nb_agent_bench_") as tmp:
        root = Path(tmp)
        start = time.perf_counter()
        build_tree(root, options.files)
        print(f"built {options.files:,} files in {time.perf_counter() - start:.1f}s under {root}")
        print(f"rg: {rg_executable()}  cpus: {os.cpu_count()}  reps: {options.reps}")
        results = asyncio.run(bench(root, options.reps))
    print(f"\n{'case':46} {'tool ms':>9} {'rg ms':>9} {'ratio':>7}")
    for name, tool_s, rg_s in results:
        print(f"{name:46} {tool_s * 1000:9.1f} {rg_s * 1000:9.1f} {tool_s / rg_s:7.2f}")


if __name__ == "__main__":
    main()
