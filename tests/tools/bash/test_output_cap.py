"""Bash output files are capped (64 MB by default; a small cap here), with a notice, for
foreground and background commands alike."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from nb_agent.abort import AbortController
from nb_agent.tools.base import ToolSession, ToolUseContext
from nb_agent.tools.bash import BashTool, output_cap

CAP = 64 * 1024


@pytest.fixture(autouse=True)
def small_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(output_cap, "MAX_OUTPUT_FILE_BYTES", CAP)


def _ctx(tmp_path: Path) -> ToolUseContext:
    return ToolUseContext(abort_controller=AbortController(), session=ToolSession(cwd=tmp_path, session_dir=tmp_path / "s"))


async def test_a_foreground_command_past_the_cap_is_cut_with_a_notice(tmp_path: Path) -> None:
    tool = BashTool()
    # writes 2 MB over about a second, so the watchdog sees it grow
    command = "for i in $(seq 20); do head -c 102400 /dev/zero | tr '\\0' x; sleep 0.05; done"
    result = await tool.call(tool.parse_input({"command": command}), _ctx(tmp_path), lambda _: None)
    text = tool.map_result_to_block(result.data, "t")
    assert "output exceeded" in str(text)
    files = list((tmp_path / "s").rglob("*.out"))
    assert all(f.stat().st_size <= CAP for f in files)


async def test_a_background_command_is_capped_after_the_call_returned(tmp_path: Path) -> None:
    tool = BashTool()
    ctx = _ctx(tmp_path)
    command = "for i in $(seq 30); do head -c 102400 /dev/zero | tr '\\0' y; sleep 0.05; done"
    result = await tool.call(tool.parse_input({"command": command, "run_in_background": True}), ctx, lambda _: None)
    path = result.data.output_path
    sizes = []
    deadline = time.monotonic() + 10

    shells = ctx.session.resources.background_shells
    shell = next(iter(shells._shells.values()))
    while time.monotonic() < deadline and shell.command.poll() is None:
        sizes.append(path.stat().st_size if path.exists() else 0)
        await asyncio.sleep(0.05)
    assert max(sizes) < CAP + 2 * 1024 * 1024  # bounded while it ran (the watchdog lags a little)
    assert path.stat().st_size <= CAP + 1024 * 1024
    assert "output exceeded" in shell.read_new_output(max_chars=2000)
