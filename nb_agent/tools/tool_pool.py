"""The session's tool pool: built-ins plus MCP tools, refreshed between turns, with
ToolSearch deciding which definitions each request carries (SPEC §7).

Building a request's ``tools`` costs what the request carries, not what the catalog holds:
which tools are deferred is worked out once per pool (the ``auto`` threshold reads every
deferred definition), what ToolSearch has found is read from the new messages only, and
each definition is memoised on its tool."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal

from nb_agent.tools.base import Tool, ToolUseContext
from nb_agent.tools.pool import assemble_tool_pool
from nb_agent.tools.tool_search import (
    DEFAULT_CONTEXT_WINDOW,
    TOOL_SEARCH_NAME,
    DiscoveredTools,
    announce_deferred,
    deferred_tools,
    resolve_mode,
)

if TYPE_CHECKING:
    from nb_agent.mcp.manager import McpManager


@dataclass(frozen=True, kw_only=True)
class _Deferral:
    """What a pool defers (worked out once per pool, mode and window)."""

    pool: list[Tool[Any]]
    mode: str
    context_window: int
    deferred: frozenset[str]
    always: list[tuple[int, Tool[Any]]]
    """The tools every request carries, with their place in the pool."""
    deferred_by_name: dict[str, tuple[int, Tool[Any]]]
    announcement: str | None

    @classmethod
    def of(cls, pool: list[Tool[Any]], mode: str, context_window: int) -> _Deferral:
        deferred = deferred_tools(pool, mode, context_window)
        names = frozenset(t.name for t in deferred)
        indexed = list(enumerate(pool))
        return cls(
            pool=pool,
            mode=mode,
            context_window=context_window,
            deferred=names,
            # nothing deferred: ToolSearch would have nothing to find
            always=[(i, t) for i, t in indexed if (t.name not in names if names else t.name != TOOL_SEARCH_NAME)],
            deferred_by_name={t.name: (i, t) for i, t in indexed if t.name in names},
            announcement=announce_deferred(deferred),
        )

    def matches(self, pool: Sequence[Tool[Any]], mode: str, context_window: int) -> bool:
        same_pool = self.pool is pool or (len(self.pool) == len(pool) and self.pool == list(pool))
        return same_pool and self.mode == mode and self.context_window == context_window


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
    _deferral: _Deferral | None = field(default=None, init=False)
    _discovered: DiscoveredTools = field(default_factory=DiscoveredTools, init=False)
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
        """The pool; the same list as before while its tools are the same (what is worked
        out per pool is then not worked out again)."""
        mcp_tools = self.mcp.tools() if self.mcp is not None else []
        pool = assemble_tool_pool(self.builtins, mcp_tools, self.is_denied)
        if pool != self._pool:  # tools compare by identity
            self._pool = pool
        return self._pool

    async def refresh(self, ctx: ToolUseContext) -> ToolUseContext:
        """Between turns: reconnect dead servers, pick up ``tools/list_changed``."""
        if self.mcp is None:
            return ctx
        await self.mcp.refresh()
        return replace(ctx, tools=self.assemble())

    def _deferral_for(self, tools: Sequence[Tool[Any]]) -> _Deferral:
        mode = resolve_mode(self.mode)
        deferral = self._deferral
        if deferral is None or not deferral.matches(tools, mode, self.context_window):
            deferral = self._deferral = _Deferral.of(list(tools), mode, self.context_window)
        return deferral

    def tool_definitions(self, tools: Sequence[Tool[Any]], window: list[Any]) -> list[dict[str, Any]]:
        """The ``tools`` of a request: the tools that are not deferred, and the deferred
        ones ToolSearch has found in ``window`` (marked ``defer_loading`` when found ones
        are loaded by ``tool_reference``), in pool order."""
        deferral = self._deferral_for(tools)
        if not deferral.deferred:
            return [t.to_api_definition() for _, t in deferral.always]
        found = self._discovered.names(window) & deferral.deferred
        chosen = sorted([*deferral.always, *(deferral.deferred_by_name[name] for name in found)], key=lambda it: it[0]) if found else deferral.always
        if self.tool_references:
            return [t.deferred_definition() if t.name in found else t.to_api_definition() for _, t in chosen]
        return [t.to_api_definition() for _, t in chosen]

    def forget_history(self) -> None:
        """A new conversation: what ToolSearch found belongs to the old one."""
        self._discovered = DiscoveredTools()

    def system_sections(self, tools: Sequence[Tool[Any]]) -> list[str]:
        """Dynamic (uncached) system prompt text: deferred tools, MCP servers' instructions."""
        sections: list[str] = []
        announcement = self._deferral_for(tools).announcement
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
