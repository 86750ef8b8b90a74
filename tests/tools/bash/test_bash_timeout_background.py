"""Timeouts move a command to the background (or kill it); BashOutput and KillShell."""

from __future__ import annotations

import asyncio
import re
import time
from pathlib import Path
from typing import Any

import pytest

from nb_agent.abort import AbortController
from nb_agent.errors import ToolError
from nb_agent.testing.waiting import eventually
from nb_agent.tools.base import Tool, ToolResult, ToolSession, ToolUseContext
from nb_agent.tools.bash import BackgroundShells, BashOutputTool, BashTool, KillShellTool
from nb_agent.tools.services import ToolServices


@pytest.fixture
def ctx(tmp_path: Path) -> ToolUseContext:
    return ToolUseContext(abort_controller=AbortController(), session=ToolSession(cwd=tmp_path, session_dir=tmp_path / "s"))


async def call(tool: Tool[Any], ctx: ToolUseContext, **raw: object) -> tuple[ToolResult, str]:
    parsed = tool.parse_input(raw)
    verdict = await tool.validate_input(parsed, ctx)
    assert verdict.ok, verdict.message
    result = await tool.call(parsed, ctx, lambda _: None)
    return result, tool.map_result_to_block(result.data, "toolu_1")  # type: ignore[return-value]


async def read_until(ctx: ToolUseContext, shell_id: str, needle: str, *, within: float = 20.0) -> str:
    """Poll BashOutput until ``needle`` shows up; returns everything read."""
    seen = ""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        _, text = await call(BashOutputTool(), ctx, bash_id=shell_id)
        seen += text
        if needle in seen:
            return seen
        await asyncio.sleep(0.05)
    raise AssertionError(f"{needle!r} never appeared; read {seen!r}")


# Bounds on a call's duration only separate "waited for the command's `sleep 100`" from "did
# not"; these machines are shared and slow.
GENEROUS_S = 20


async def test_timeout_moves_command_to_background(ctx: ToolUseContext) -> None:
    started = time.monotonic()
    result, text = await call(BashTool(), ctx, command="echo start; sleep 0.7; echo later; sleep 100", timeout=300)
    assert time.monotonic() - started < GENEROUS_S
    assert not result.is_error
    assert result.data.background_id == "bash_1"
    assert "moved to the background with ID: bash_1" in text
    assert 'BashOutput(bash_id="bash_1")' in text and 'KillShell(shell_id="bash_1")' in text

    seen = await read_until(ctx, "bash_1", "later")
    assert "start" in seen  # output from before the timeout is readable too
    assert "<status>running</status>" in seen

    _, again = await call(BashOutputTool(), ctx, bash_id="bash_1")
    assert "(no new output)" in again  # each read returns only new output

    killed, kill_text = await call(KillShellTool(), ctx, shell_id="bash_1")
    assert kill_text.startswith("Successfully killed shell: bash_1")
    shell = BackgroundShells.for_session(ctx.session).get("bash_1")
    assert shell is not None and not shell.command.group_alive()
    _, after = await call(BashOutputTool(), ctx, bash_id="bash_1")
    assert "<status>killed</status>" in after

    with pytest.raises(ToolError, match="not running"):
        await call(KillShellTool(), ctx, shell_id="bash_1")


async def test_timeout_kill_mode(tmp_path: Path) -> None:
    ctx = ToolUseContext(
        abort_controller=AbortController(),
        session=ToolSession(cwd=tmp_path, session_dir=tmp_path / "s"),
        services=ToolServices(bash_timeout_action="kill"),
    )
    started = time.monotonic()
    # 3 s: time for a loaded machine to start bash and run the echoes before the timeout
    result, text = await call(BashTool(), ctx, command="echo partial; echo $$ > pid; sleep 100", timeout=3000)
    assert time.monotonic() - started < GENEROUS_S
    assert result.is_error
    assert text == "partial\nCommand timed out after 3s"
    pid = int((tmp_path / "pid").read_text())
    assert not Path(f"/proc/{pid}").exists() or "Z" in Path(f"/proc/{pid}/stat").read_text().split(")")[1][:3]
    assert BackgroundShells.for_session(ctx.session).shells() == []


async def test_run_in_background_returns_at_once(ctx: ToolUseContext, tmp_path: Path) -> None:
    # The command cannot finish before the call returns: it waits for a file written after.
    command = "while [ ! -e go ]; do sleep 0.02; done; echo done"
    result, text = await asyncio.wait_for(call(BashTool(), ctx, command=command, run_in_background=True), GENEROUS_S)
    assert not result.is_error
    assert text.startswith("Command running in background with ID: bash_1.")

    (tmp_path / "go").touch()
    seen = await read_until(ctx, "bash_1", "<status>completed</status>")
    assert "done" in seen and "<exit_code>0</exit_code>" in seen


async def test_background_failure_status_and_exit_code(ctx: ToolUseContext) -> None:
    await call(BashTool(), ctx, command="echo oops; exit 4", run_in_background=True)
    seen = await read_until(ctx, "bash_1", "<status>failed</status>")
    assert "<exit_code>4</exit_code>" in seen and "oops" in seen


async def test_shell_ids_count_up_and_registry_lives_in_the_session(ctx: ToolUseContext) -> None:
    await call(BashTool(), ctx, command="true", run_in_background=True)
    await call(BashTool(), ctx, command="true", run_in_background=True)
    registry = ctx.session.resources.background_shells
    assert isinstance(registry, BackgroundShells)
    assert [s.id for s in registry.shells()] == ["bash_1", "bash_2"]


async def test_filter_keeps_matching_lines_and_consumes_the_rest(ctx: ToolUseContext) -> None:
    await call(BashTool(), ctx, command="printf 'a1\\nb2\\na3\\n'", run_in_background=True)
    shell = BackgroundShells.for_session(ctx.session).get("bash_1")
    assert shell is not None
    await eventually(lambda: shell.status != "running", "the command finished", within=GENEROUS_S)
    _, text = await call(BashOutputTool(), ctx, bash_id="bash_1", filter="^a")
    output = re.search(r"<output>\n(.*)\n</output>", text, re.S)
    assert output is not None and output.group(1) == "a1\na3"
    _, again = await call(BashOutputTool(), ctx, bash_id="bash_1")
    assert "(no new output)" in again


async def test_filter_waits_for_a_partial_line_while_running(ctx: ToolUseContext, tmp_path: Path) -> None:
    # the line's end is written once the test has read its start: a file, not a sleep, orders them
    command = "printf 'ab'; while [ ! -e go ]; do sleep 0.02; done; printf 'c\\n'"
    await call(BashTool(), ctx, command=command, run_in_background=True)
    shell = BackgroundShells.for_session(ctx.session).get("bash_1")
    assert shell is not None
    await eventually(lambda: shell.command.output_path.read_text() == "ab", "the command printed its first part", within=GENEROUS_S)
    _, first = await call(BashOutputTool(), ctx, bash_id="bash_1", filter="abc")
    assert "(no new output)" in first
    (tmp_path / "go").touch()
    await eventually(lambda: shell.status != "running", "the command finished", within=GENEROUS_S)
    _, second = await call(BashOutputTool(), ctx, bash_id="bash_1", filter="abc")
    assert "<output>\nabc\n</output>" in second


async def test_bad_filter_and_unknown_id(ctx: ToolUseContext) -> None:
    tool = BashOutputTool()
    verdict = await tool.validate_input(tool.parse_input({"bash_id": "bash_1", "filter": "("}), ctx)
    assert not verdict.ok and "Invalid regular expression" in verdict.message
    with pytest.raises(ToolError, match="No shell found with ID: bash_9"):
        await tool.call(tool.parse_input({"bash_id": "bash_9"}), ctx, lambda _: None)
    with pytest.raises(ToolError, match="No shell found"):
        await call(KillShellTool(), ctx, shell_id="bash_9")


async def test_kill_all_and_finished_notices(ctx: ToolUseContext) -> None:
    await call(BashTool(), ctx, command="sleep 100", run_in_background=True)
    await call(BashTool(), ctx, command="sleep 100", run_in_background=True)
    await call(BashTool(), ctx, command="true", run_in_background=True)
    registry = BackgroundShells.for_session(ctx.session)
    third = registry.get("bash_3")
    assert third is not None
    await eventually(lambda: third.status != "running", "`true` finished", within=GENEROUS_S)
    assert [s.id for s in registry.take_finished()] == ["bash_3"]
    assert registry.take_finished() == []
    await registry.kill_all()
    assert registry.running() == []
    assert [s.status for s in registry.shells()] == ["killed", "killed", "completed"]
    assert {s.id for s in registry.take_finished()} == {"bash_1", "bash_2"}


async def test_kill_all_now_is_synchronous(ctx: ToolUseContext) -> None:
    await call(BashTool(), ctx, command="sleep 100", run_in_background=True)
    registry = BackgroundShells.for_session(ctx.session)
    registry.kill_all_now()
    assert registry.running() == []
