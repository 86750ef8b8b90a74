"""Fixtures for MCP tests: the real test server (``nb_agent.testing.mcp_server``)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Any

import pytest

from nb_agent.abort import AbortController
from nb_agent.mcp import McpManager, McpSettings, McpTool
from nb_agent.testing.mcp_server import http_server, stdio_config
from nb_agent.tools.base import ToolResult, ToolUseContext

CallTool = Callable[..., Awaitable[ToolResult]]


@pytest.fixture
def call_tool() -> CallTool:
    """``await call_tool(tool, raw_input, controller=None)``: validate and call, as the pipeline does."""

    async def call(tool: McpTool, raw: dict[str, Any], controller: AbortController | None = None) -> ToolResult:
        ctx = ToolUseContext(abort_controller=controller or AbortController())
        return await tool.call(tool.parse_input(raw), ctx, lambda _progress: None)

    return call


@pytest.fixture
async def manager() -> AsyncIterator[McpManager]:
    """One connected stdio server named ``test``."""
    m = McpManager(servers={"test": stdio_config()}, settings=McpSettings(connect_timeout=30))
    await m.ensure_started()
    assert m.list_servers()[0].status == "connected", m.list_servers()
    yield m
    await m.aclose()


@pytest.fixture
def http_server_url() -> Iterator[str]:
    with http_server() as url:
        yield url
