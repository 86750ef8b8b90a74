"""The same server over streamable HTTP."""

from __future__ import annotations

import pytest

from nb_agent.errors import ToolError
from nb_agent.mcp import McpManager
from nb_agent.testing.mcp_server import http_server
from nb_agent.testing.waiting import eventually


async def test_http_connect_list_call_and_list_changed(http_server_url: str, call_tool) -> None:
    manager = McpManager(servers={"web": {"type": "http", "url": http_server_url, "headers": {"X-Client": "nb_agent"}}})
    await manager.ensure_started()
    [row] = manager.list_servers()
    assert (row.status, row.transport) == ("connected", "http"), row.error
    tools = {t.name: t for t in manager.tools()}
    echo = tools["mcp__web__echo"]
    assert echo.map_result_to_block((await call_tool(echo, {"text": "over http"})).data, "t") == "echo: over http"
    image = await call_tool(tools["mcp__web__make_image"], {})
    assert image.data.content[1]["type"] == "image"
    await call_tool(tools["mcp__web__add_tool"], {"name": "http_added"})
    await eventually(lambda: manager.connection("web").tools_dirty, "the server's tools/list_changed marks its tools dirty")
    await manager.refresh()
    assert "mcp__web__http_added" in {t.name for t in manager.tools()}
    assert manager.instructions()["web"]
    await manager.aclose()


async def test_http_server_going_away_is_a_clear_error(call_tool) -> None:
    with http_server() as url:
        manager = McpManager(servers={"web": {"type": "http", "url": url}})
        await manager.ensure_started()
        echo = {t.name: t for t in manager.tools()}["mcp__web__echo"]
    # the server process is gone now
    with pytest.raises(ToolError, match="web"):
        await call_tool(echo, {"text": "x"})
    assert manager.list_servers()[0].status in ("disconnected", "failed")
    await manager.aclose()


async def test_unreachable_http_server_fails_fast() -> None:
    manager = McpManager(servers={"down": {"type": "http", "url": "http://127.0.0.1:9/mcp"}})
    await manager.ensure_started()
    [row] = manager.list_servers()
    assert row.status == "failed" and row.error
    await manager.aclose()
