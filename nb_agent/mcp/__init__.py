"""MCP servers as tools: configuration, connections, the manager and ``McpTool``.

Needs the ``mcp`` SDK (``pip install nb_agent[mcp]``). The session builds one
:class:`McpManager` (``McpManager.from_config(cwd=...)``), awaits ``ensure_started()``
before the first request and ``refresh()`` between turns, passes ``manager.tools()`` to
:func:`nb_agent.tools.pool.assemble_tool_pool`, puts ``manager.instructions()`` in the
system prompt, and awaits ``aclose()`` at the end.

The configuration and the manager import without the SDK; the names of
:data:`_NEEDS_SDK` (connections, tools, results) are imported on first use, so building a
manager for a folder with no servers never loads the SDK (:mod:`nb_agent.mcp.state`).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from nb_agent.mcp.config import (
    ConfigIssue,
    HttpServerConfig,
    McpConfigLoad,
    McpServerConfig,
    ScopedServerConfig,
    StdioServerConfig,
    load_mcp_config,
    normalize_name_for_mcp,
    parse_server_config,
)
from nb_agent.mcp.manager import McpManager, McpServerState
from nb_agent.mcp.state import McpSettings, ServerStatus

if TYPE_CHECKING:
    from nb_agent.mcp.connection import McpConnection as McpConnection
    from nb_agent.mcp.connection import McpConnectionError as McpConnectionError
    from nb_agent.mcp.results import McpToolOutput as McpToolOutput
    from nb_agent.mcp.results import convert_call_result as convert_call_result
    from nb_agent.mcp.tool import McpTool as McpTool
    from nb_agent.mcp.tool import McpToolInput as McpToolInput
    from nb_agent.mcp.tool import mcp_tool_name as mcp_tool_name

_NEEDS_SDK: dict[str, str] = {
    "McpConnection": "nb_agent.mcp.connection",
    "McpConnectionError": "nb_agent.mcp.connection",
    "McpToolOutput": "nb_agent.mcp.results",
    "convert_call_result": "nb_agent.mcp.results",
    "McpTool": "nb_agent.mcp.tool",
    "McpToolInput": "nb_agent.mcp.tool",
    "mcp_tool_name": "nb_agent.mcp.tool",
}


def __getattr__(name: str) -> Any:
    module = _NEEDS_SDK.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


__all__ = [
    "ConfigIssue",
    "HttpServerConfig",
    "McpConfigLoad",
    "McpConnection",
    "McpConnectionError",
    "McpManager",
    "McpServerConfig",
    "McpServerState",
    "McpSettings",
    "McpTool",
    "McpToolInput",
    "McpToolOutput",
    "ScopedServerConfig",
    "ServerStatus",
    "StdioServerConfig",
    "convert_call_result",
    "load_mcp_config",
    "mcp_tool_name",
    "normalize_name_for_mcp",
    "parse_server_config",
]
