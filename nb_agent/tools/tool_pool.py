"""The session's tool pool: built-ins plus MCP tools, refreshed between turns, with
ToolSearch deciding which definitions each request carries (SPEC §7)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal

from nb_agent.tools.base import Tool, ToolUseContext
from nb_agent.tools.pool import assemble_tool_pool
from nb_agent.tools.tool_search import DEFAULT_CONTEXT_WINDOW, definitions_with_deferral, deferred_tools_prompt, tools_for_request

if TYPE_CHECKING:
    from nb_agent.mcp.manager import McpManager


@dataclass(kw_only=True)
class ToolPoolProvider:
    """Builds the pool for each request; the engine calls it, the loop refreshes it."""

    builtins: list[Tool[Any]]
    mcp: McpManager | None = None
    is_denied: Callable[[Tool[Any]], bool] = lambda tool: False
    mode: str | None = None
    """ToolSearch mode (``auto`` / ``on`` / ``off``; None reads ``NB_AGENT_TOOL_SEARCH``)."""
    context_window: int = DEFAULT_CONTEXT_WINDOW
    tool_references: bool = False
    """Send deferred tools with ``defer_loading`` and load them by ``tool_reference`` blocks
    (the engine sets it per submission, see ``tool_references_enabled``)."""
    mcp_wait: float | None = None
    """At most this many seconds before a request for MCP servers still starting (they join
    at a later turn); ``None`` waits for each until its connect timeout."""
    _pool: list[Tool[Any]] = field(default_factory=list, init=False)
    _said: dict[str, str] = field(default_factory=dict, init=False)
    """What :meth:`take_notices` last said about each MCP server (its status)."""

    async def current(self) -> list[Tool[Any]]:
        """Connect MCP servers if needed (lazily, concurrently) and assemble the pool."""
        if self.mcp is not None:
            if self.mcp_wait is None:
                await self.mcp.ensure_started()
            else:
                await self.mcp.start_within(self.mcp_wait)
        return self.assemble()

    def take_notices(self) -> list[tuple[Literal["info", "warning"], str]]:
        """One line for each MCP server that failed to start, is still starting, or has
        connected since it was said to be starting; each said once."""
        if self.mcp is None:
            return []
        lines: list[tuple[Literal["info", "warning"], str]] = []
        for server in self.mcp.list_servers():
            said = self._said.get(server.name)
            if server.status == "failed" and said != "failed":
                reason = (server.error or "no reason given").strip().splitlines()[0]
                lines.append((
                    "warning",
                    f"MCP server {server.name!r} failed to start: {reason}. Going on without it "
                    f"(%agent mcp shows it; %agent mcp reconnect {server.name} tries again).",
                ))  # fmt: skip
            elif server.status in ("pending", "connecting") and said is None:
                lines.append(("info", f"MCP server {server.name!r} is still starting; its tools join when it is ready."))
            elif server.status == "connected" and said in ("pending", "connecting"):
                lines.append(("info", f"MCP server {server.name!r} is ready: {server.tool_count} tools."))
            else:
                continue
            self._said[server.name] = server.status
        return lines

    def assemble(self) -> list[Tool[Any]]:
        mcp_tools = self.mcp.tools() if self.mcp is not None else []
        self._pool = assemble_tool_pool(self.builtins, mcp_tools, self.is_denied)
        return self._pool

    async def refresh(self, ctx: ToolUseContext) -> ToolUseContext:
        """Between turns: reconnect dead servers, pick up ``tools/list_changed``."""
        if self.mcp is None:
            return ctx
        await self.mcp.refresh()
        return replace(ctx, tools=self.assemble())

    def tool_definitions(self, tools: Sequence[Tool[Any]], window: list[Any]) -> list[dict[str, Any]]:
        if self.tool_references:
            return definitions_with_deferral(tools, self.mode, self.context_window)
        return [t.to_api_definition() for t in tools_for_request(tools, window, self.mode, self.context_window)]

    def system_sections(self, tools: Sequence[Tool[Any]]) -> list[str]:
        """Dynamic (uncached) system prompt text: deferred tools, MCP servers' instructions."""
        sections: list[str] = []
        announcement = deferred_tools_prompt(tools, self.mode, self.context_window)
        if announcement:
            sections.append(announcement)
        if self.mcp is not None:
            for server, text in sorted(self.mcp.instructions().items()):
                if text:
                    sections.append(f"<mcp-server-instructions server=\"{server}\">\n{text}\n</mcp-server-instructions>")
        return sections

    async def aclose(self) -> None:
        if self.mcp is not None:
            await self.mcp.aclose()
