"""A server still starting (or broken) does not hold up a run's first request when the pool
waits at most ``mcp_wait``: the request goes out while it is connecting, one line says so, one
line names a server that failed and why, and a late server's tools join at the next request."""

from __future__ import annotations

import asyncio
import logging
import sys

from nb_agent.mcp import McpManager, McpSettings
from nb_agent.tools.tool_pool import ToolPoolProvider


def _held(release) -> dict:
    code = (
        "import pathlib, time\n"
        f"p = pathlib.Path({str(release)!r})\n"
        "while not p.exists(): time.sleep(0.05)\n"
        "import runpy, sys; sys.argv = ['mcp_server']; runpy.run_module('nb_agent.testing.mcp_server', run_name='__main__')\n"
    )
    return {"command": sys.executable, "args": ["-c", code]}


async def test_a_server_still_starting_does_not_hold_up_the_request_and_joins_later(tmp_path):
    release = tmp_path / "release"
    garbage = {"command": sys.executable, "args": ["-c", "import sys; print('banner, not JSON', flush=True); sys.exit(4)"]}
    manager = McpManager(
        servers={"late": _held(release), "broken": garbage},
        settings=McpSettings(connect_timeout=300),  # only a backstop: nothing here waits for it
    )
    pool = ToolPoolProvider(builtins=[], mcp=manager, mcp_wait=0.0)
    try:
        assert await pool.current() == []  # returned while "late" is still starting
        assert "late" in manager.starting()
        while {r.name: r.status for r in manager.list_servers()}["broken"] != "failed":
            await asyncio.sleep(0.02)  # the broken one fails on its own, in the background
        said = dict((text.split("'")[1], (level, text)) for level, text in pool.take_notices())
        assert said["late"][0] == "info" and "still starting" in said["late"][1]
        assert said["broken"][0] == "warning" and said["broken"][1].startswith("MCP server 'broken' failed to start: ")
        assert "\n" not in said["broken"][1] and "%agent mcp reconnect broken" in said["broken"][1]
        assert pool.take_notices() == []  # each said once
        release.touch()
        while manager.starting():
            await asyncio.sleep(0.02)
        tools = await pool.current()
        assert tools and all(t.name.startswith("mcp__late__") for t in tools)
        (ready,) = pool.take_notices()
        assert ready[1].startswith("MCP server 'late' is ready: ")
    finally:
        release.touch()
        await manager.aclose()
    assert manager.starting() == []


async def test_close_cancels_a_start_in_the_background(tmp_path):
    release = tmp_path / "never"
    manager = McpManager(servers={"late": _held(release)}, settings=McpSettings(connect_timeout=300))
    await manager.start_within(0.0)
    assert manager.starting() == ["late"]
    await manager.aclose()
    assert manager.starting() == [] and {r.status for r in manager.list_servers()} <= {"closed", "pending"}


def test_the_library_traceback_stays_out_of_the_cell():
    """After quiet_mcp_library, the MCP client's records do not reach the root logger's
    handlers (the kernel prints those into the cell); other loggers' records still do."""
    from nb_agent.jupyter.engine_factory import quiet_mcp_library

    class Seen(logging.Handler):
        def __init__(self) -> None:
            super().__init__(logging.DEBUG)
            self.names: list[str] = []

        def emit(self, record: logging.LogRecord) -> None:
            self.names.append(record.name)

    root, seen = logging.getLogger(), Seen()
    saved = (logging.getLogger("mcp").propagate, root.level)
    root.addHandler(seen)
    root.setLevel(logging.DEBUG)
    try:
        quiet_mcp_library()
        try:
            raise ValueError("Invalid JSON: expected ident")
        except ValueError:
            logging.getLogger("mcp.client.stdio").exception("Failed to parse JSONRPC message from server")
        logging.getLogger("nb_agent.test_control").warning("this one reaches the root")
    finally:
        root.removeHandler(seen)
        logging.getLogger("mcp").propagate, _ = saved[0], root.setLevel(saved[1])
    # only the two loggers this test writes to: anything else running in the process (an
    # asyncio child watcher of an earlier test's closed loop, say) may log meanwhile
    assert [name for name in seen.names if name.startswith(("mcp", "nb_agent.test_control"))] == ["nb_agent.test_control"]
