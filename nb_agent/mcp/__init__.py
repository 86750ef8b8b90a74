"""MCP servers as tools: configuration, connections, the manager and ``McpTool``.

Needs the ``mcp`` SDK (``pip install nb_agent[mcp]``). The session builds one
:class:`McpManager` (``McpManager.from_config(cwd=...)``), awaits ``ensure_started()``
before the first request and ``refresh()`` between turns, passes ``manager.tools()`` to
:func:`nb_agent.tools.pool.assemble_tool_pool`, puts ``manager.instructions()`` in the
system prompt, and awaits ``aclose()`` at the end.
"""

from nb_agent.mcp.config import (
    ConfigIssue,
    HttpServerConfig,
    McpConfigLoad,
    McpServerConfig,
    ScopedServerConfig,
    StdioServerConfig,
    load_mcp_config,
    parse_server_config,
)
from nb_agent.mcp.connection import McpConnection, McpConnectionError, ServerStatus
from nb_agent.mcp.manager import McpManager, McpServerState, McpSettings
from nb_agent.mcp.results import McpToolOutput, convert_call_result
from nb_agent.mcp.tool import McpTool, McpToolInput, mcp_tool_name, normalize_name_for_mcp

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
