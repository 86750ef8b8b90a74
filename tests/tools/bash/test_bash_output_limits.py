"""Large output: truncated around "[N lines truncated]", full file on disk, bounded memory;
progress reports are rate-limited."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from nb_agent.abort import AbortController
from nb_agent.tools.base import ToolResult, ToolSession, ToolUseContext
from nb_agent.tools.bash import BashOutputTool, BashTool
from nb_agent.tools.bash.shell import read_output_slice, tail_text

TRUNCATED = re.compile(r"\n\n\.\.\. \[(\d+) lines truncated\] \.\.\.\n\n")


@pytest.fixture
def ctx(tmp_path: Path) -> ToolUseContext:
    return ToolUseContext(abort_controller=AbortController(), session=ToolSession(cwd=tmp_path, session_dir=tmp_path / "s"))


async def run(ctx: ToolUseContext, command: str, on_progress: Any = None, **fields: object) -> tuple[ToolResult, str]:
    tool = BashTool()
    result = await tool.call(tool.parse_input({"command": command, **fields}), ctx, on_progress or (lambda _: None))
    return result, tool.map_result_to_block(result.data, "toolu_1")  # type: ignore[return-value]


# Measured in a fresh interpreter: in the suite's own process, threads earlier tests left
# running (model and MCP servers, kernel clients) allocate too while the command streams, and
# tracemalloc counts theirs (on a loaded machine the command streams longer: 6.9 MB once).
PEAK_SCRIPT = """
import asyncio, sys, tracemalloc
from pathlib import Path
from nb_agent.abort import AbortController
from nb_agent.tools.base import ToolSession, ToolUseContext
from nb_agent.tools.bash import BashTool

async def main():
    folder = Path(sys.argv[1])
    ctx = ToolUseContext(abort_controller=AbortController(), session=ToolSession(cwd=folder, session_dir=folder / "s"))
    tool = BashTool()
    tool_input = tool.parse_input({"command": "yes | head -c 50000000", "timeout": 60_000})
    tracemalloc.start()
    result = await tool.call(tool_input, ctx, lambda _: None)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(peak, result.is_error)

asyncio.run(main())
"""


def test_fifty_megabytes_stream_with_bounded_memory(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-c", PEAK_SCRIPT, str(tmp_path)], capture_output=True, text=True, timeout=300, check=True)
    peak, is_error = done.stdout.split()
    assert is_error == "False", done.stdout
    assert int(peak) < 5_000_000, f"peak Python memory {peak} bytes"


async def test_fifty_megabytes_truncated(ctx: ToolUseContext) -> None:
    result, text = await run(ctx, "yes | head -c 50000000", timeout=60_000)
    assert not result.is_error
    assert len(text) <= BashTool.max_result_size_chars
    match = TRUNCATED.search(text)
    assert match is not None
    shown = result.data.output.replace(match.group(0), "\n").count("y")
    assert shown + int(match.group(1)) == 25_000_000  # every line is either shown or counted
    path = result.data.output_path
    assert path is not None and str(path) in text
    assert path.stat().st_size == 50_000_000
    assert "Full output (50000000 bytes) saved to:" in text


async def test_truncation_keeps_head_and_tail_whole_lines(ctx: ToolUseContext) -> None:
    result, text = await run(ctx, "seq 1 40000")
    assert result.data.truncated
    match = TRUNCATED.search(result.data.output)
    assert match is not None
    head, tail = result.data.output.split(match.group(0))
    head_lines, tail_lines = head.splitlines(), tail.splitlines()
    assert head_lines[:3] == ["1", "2", "3"] and tail_lines[-1] == "40000"
    assert int(head_lines[-1]) + int(match.group(1)) + 1 == int(tail_lines[0])
    assert len(text) <= BashTool.max_result_size_chars


async def test_output_just_under_the_limit_is_whole(ctx: ToolUseContext, tmp_path: Path) -> None:
    result, text = await run(ctx, "head -c 20000 /dev/zero | tr '\\0' x")
    assert not result.data.truncated and text == "x" * 20000
    assert list((tmp_path / "s" / "bash").iterdir()) == []


async def test_multibyte_output_truncates_on_character_boundaries(ctx: ToolUseContext) -> None:
    result, _ = await run(ctx, "yes 'héllo wörld ✓' | head -n 20000")
    assert result.data.truncated
    assert "\ufffd" not in result.data.output


def test_read_output_slice_leaves_a_partial_character_for_later(tmp_path: Path) -> None:
    path = tmp_path / "out"
    path.write_bytes("ab✓".encode()[:-1])  # the check mark is cut after 2 of its 3 bytes
    first = read_output_slice(path, max_chars=100, final=False)
    assert first.head == "ab" and first.end_offset == 2
    path.write_bytes("ab✓".encode())
    second = read_output_slice(path, max_chars=100, start=first.end_offset, final=False)
    assert second.head == "✓"


def test_tail_text_shows_last_lines_as_a_terminal_would(tmp_path: Path) -> None:
    path = tmp_path / "out"
    path.write_text("".join(f"line {i}\n" for i in range(100)) + "10%\r50%\r100%\n")
    assert tail_text(path, max_lines=3) == "line 98\nline 99\n100%"


async def test_background_output_is_bounded_too(ctx: ToolUseContext) -> None:
    tool = BashTool()
    await tool.call(tool.parse_input({"command": "seq 1 200000", "run_in_background": True}), ctx, lambda _: None)
    reader = BashOutputTool()
    deadline = time.monotonic() + 5
    text = ""
    while "<status>completed</status>" not in text and time.monotonic() < deadline:
        result = await reader.call(reader.parse_input({"bash_id": "bash_1"}), ctx, lambda _: None)
        text += result.data
    assert "lines truncated]" in text and "200000" in text
    filtered = await reader.call(reader.parse_input({"bash_id": "bash_1", "filter": "x"}), ctx, lambda _: None)
    assert "(no new output)" in filtered.data


async def test_progress_is_rate_limited(ctx: ToolUseContext) -> None:
    reports: list[tuple[float, dict[str, Any]]] = []
    started = time.monotonic()
    await run(ctx, "for i in $(seq 1 15); do echo line$i; sleep 0.04; done", lambda p: reports.append((time.monotonic(), p)))
    duration = time.monotonic() - started
    assert 2 <= len(reports) <= duration * 10 + 1
    # the reports' own times (rounded to the ms): the test's stamps, taken after the reporter
    # read the output, can come closer together when the machine is loaded
    gaps = [b[1]["elapsed"] - a[1]["elapsed"] for a, b in zip(reports, reports[1:])]
    assert all(gap >= 0.1 - 0.0011 for gap in gaps), gaps
    last = reports[-1][1]
    assert set(last) == {"output_tail", "total_bytes", "elapsed"}
    assert last["output_tail"].splitlines()[-1].startswith("line")
    assert last["total_bytes"] > 0 and last["elapsed"] > 0
    assert len(last["output_tail"].splitlines()) <= 20
