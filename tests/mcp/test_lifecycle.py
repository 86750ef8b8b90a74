"""Server lifecycle: failures are reported and isolated, crashes reconnect, close leaks nothing."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time

import pytest

from nb_agent.errors import ToolError
from nb_agent.mcp import McpManager, McpSettings
from nb_agent.testing.mcp_server import stdio_config
from nb_agent.testing.processes import process_alive as alive
from nb_agent.testing.waiting import eventually


def by_name(manager: McpManager):
    return {t.name: t for t in manager.tools()}


async def server_pid(manager: McpManager, call_tool, server: str = "test") -> int:
    tool = by_name(manager)[f"mcp__{server}__server_pid"]
    return int(tool.map_result_to_block((await call_tool(tool, {})).data, "t"))


async def test_failing_servers_are_reported_and_do_not_block_the_others(tmp_path) -> None:
    # "held" stays connecting until the test releases it, so "the others finished while it
    # was still starting" is an observed event, not a race against a short timeout that a
    # loaded machine loses (the good server itself can take seconds to start there).
    release = tmp_path / "release"
    held_code = (
        "import pathlib, sys, time\n"
        f"p = pathlib.Path({str(release)!r})\n"
        "while not p.exists(): time.sleep(0.05)\n"
        "print('released without a handshake', file=sys.stderr); sys.exit(3)\n"
    )
    held = {"command": sys.executable, "args": ["-c", held_code]}
    crash = {"command": sys.executable, "args": ["-c", "import sys; print('bad token', file=sys.stderr); sys.exit(2)"]}
    manager = McpManager(
        servers={"good": stdio_config(), "held": held, "crash": crash, "missing": {"command": "/no/such/binary"}},
        settings=McpSettings(connect_timeout=300),  # only a backstop: nothing here waits for it
    )
    starting = asyncio.ensure_future(manager.ensure_started())
    others_done = {"good": "connected", "held": "connecting", "crash": "failed", "missing": "failed"}
    while {r.name: r.status for r in manager.list_servers()} != others_done:
        assert not starting.done(), {r.name: (r.status, r.error) for r in manager.list_servers()}
        await asyncio.sleep(0.02)
    release.touch()
    await starting
    rows = {r.name: r for r in manager.list_servers()}
    assert rows["good"].status == "connected" and rows["good"].tool_count > 0
    assert rows["held"].status == "failed" and "released without a handshake" in rows["held"].error
    assert rows["crash"].status == "failed" and "bad token" in rows["crash"].error  # stderr tail quoted
    assert rows["missing"].status == "failed" and "No such file" in rows["missing"].error
    assert all(t.server_name == "good" for t in manager.tools())
    await manager.aclose()


async def test_a_server_that_never_answers_fails_after_the_connect_timeout() -> None:
    hang = {"command": sys.executable, "args": ["-c", "import time; time.sleep(60)"]}
    manager = McpManager(servers={"hang": hang}, settings=McpSettings(connect_timeout=1))
    await manager.ensure_started()
    [row] = manager.list_servers()
    assert row.status == "failed" and "timed out after 1 s" in row.error
    await manager.aclose()


async def test_killed_server_gives_a_clear_error_and_refresh_reconnects(manager: McpManager, call_tool) -> None:
    echo = by_name(manager)["mcp__test__echo"]
    pid = await server_pid(manager, call_tool)
    os.kill(pid, signal.SIGKILL)
    await eventually(lambda: manager.list_servers()[0].status == "disconnected", "a killed server is disconnected")
    with pytest.raises(ToolError, match="'test' is disconnected.*reconnected"):
        await call_tool(echo, {"text": "x"})
    await manager.refresh()
    [row] = manager.list_servers()
    assert row.status == "connected" and row.error is None
    # the old tool object keeps working: calls route by server name
    assert echo.map_result_to_block((await call_tool(echo, {"text": "back"})).data, "t") == "echo: back"
    assert await server_pid(manager, call_tool) != pid


async def test_server_dying_mid_call_fails_that_call_cleanly(manager: McpManager, call_tool) -> None:
    crash = by_name(manager)["mcp__test__crash"]
    with pytest.raises(ToolError, match="test"):
        await call_tool(crash, {})
    assert manager.list_servers()[0].status == "disconnected"
    await manager.refresh()
    assert manager.list_servers()[0].status == "connected"


async def test_aclose_stops_server_processes(call_tool) -> None:
    manager = McpManager(servers={"a": stdio_config(), "b": stdio_config()})
    await manager.ensure_started()
    pids = [await server_pid(manager, call_tool, "a"), await server_pid(manager, call_tool, "b")]
    assert all(alive(p) for p in pids)
    await manager.aclose()
    assert not any(alive(p) for p in pids)
    assert {r.status for r in manager.list_servers()} == {"closed"}
    assert manager.tools() == []
    # and it can start again
    await manager.ensure_started()
    assert {r.status for r in manager.list_servers()} == {"connected"}
    await manager.aclose()


async def test_ensure_started_is_lazy_and_idempotent(call_tool) -> None:
    manager = McpManager(servers={"test": stdio_config()})
    assert manager.list_servers()[0].status == "pending" and manager.tools() == []
    await asyncio.gather(manager.ensure_started(), manager.ensure_started())
    pid = await server_pid(manager, call_tool)
    await manager.ensure_started()
    assert await server_pid(manager, call_tool) == pid
    await manager.aclose()


async def test_runtime_added_server_connects_at_refresh(manager: McpManager) -> None:
    manager.add_server("second", stdio_config("--name", "second", "--bare", "--tools", "3"))
    assert {r.name: r.status for r in manager.list_servers()}["second"] == "pending"
    await manager.refresh()
    row = {r.name: r for r in manager.list_servers()}["second"]
    assert row.status == "connected" and row.tool_count == 3


async def test_reconnect_retries_a_failed_server(tmp_path) -> None:
    script = tmp_path / "flaky.py"
    script.write_text("import sys; sys.exit(1)")
    manager = McpManager(servers={"flaky": {"command": sys.executable, "args": [str(script)]}})
    await manager.ensure_started()
    assert manager.list_servers()[0].status == "failed"
    await manager.refresh()  # failed servers are not retried automatically
    assert manager.list_servers()[0].status == "failed"
    script.write_text(f"import runpy, sys; sys.argv = ['x']; runpy.run_path({str(stdio_config()['args'][0])!r}, run_name='__main__')")
    row = await manager.reconnect("flaky")
    assert row.status == "connected" and row.tool_count > 0
    await manager.aclose()


async def test_aclose_does_not_wait_for_a_server_still_connecting() -> None:
    hang = {"command": sys.executable, "args": ["-c", "import time; time.sleep(60)"]}
    manager = McpManager(servers={"hang": hang}, settings=McpSettings(connect_timeout=60))
    starting = asyncio.ensure_future(manager.ensure_started())
    while manager.list_servers()[0].status != "connecting":
        await asyncio.sleep(0.02)
    started = time.monotonic()
    await manager.aclose()
    await starting
    # Generous: only separates "waited out the 60 s connect timeout" from "did not".
    assert time.monotonic() - started < 20
    assert manager.list_servers()[0].status == "closed"
