"""``McpManager``: the configured MCP servers, their connections and their tools.

Lifecycle, driven by the session (never at import):

- ``await ensure_started()`` before the first model request: every pending server connects
  concurrently, each under its own timeout (default 30 s, env ``NB_AGENT_MCP_TIMEOUT``). A
  server that fails is reported by ``list_servers()`` (status ``failed`` + error) and never
  holds up the others. ``await start_within(seconds)`` waits for them at most that long
  instead: servers still connecting then go on in the background and their tools join the
  pool at a later turn (a broken server no longer holds up the first request).
- ``await refresh()`` between turns: connects servers added since, reconnects servers that
  died mid-session, and re-lists the tools of servers that sent ``tools/list_changed``.
  Servers that failed to start are not retried automatically (a dead server would cost a
  timeout every turn); ``await reconnect(name)`` retries one.
- ``await aclose()`` closes every connection (stdio server processes are stopped).

``tools()`` gives the current ``McpTool`` objects for ``assemble_tool_pool``; a tool routes
its calls through the manager by server name, so it survives a reconnect.

The MCP SDK is imported when the first server starts (``_start``), not with the manager: a
session without servers never loads it (:mod:`nb_agent.mcp.state`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nb_agent.errors import ConfigurationError, ToolError
from nb_agent.mcp.config import (
    ConfigIssue,
    ConfigScope,
    McpServerConfig,
    ScopedServerConfig,
    TransportKind,
    load_mcp_config,
    parse_server_config,
    server_name_conflict,
)
from nb_agent.mcp.state import McpSettings, ServerStatus, describe_exception

if TYPE_CHECKING:
    import mcp_types as mt

    from nb_agent.mcp.connection import McpConnection
    from nb_agent.mcp.tool import McpTool

logger = logging.getLogger(__name__)


@dataclass(frozen=True, kw_only=True)
class McpServerState:
    """One row of ``list_servers()``."""

    name: str
    status: ServerStatus
    scope: ConfigScope | None
    transport: TransportKind | None
    tool_count: int = 0
    error: str | None = None
    source: Path | None = None


@dataclass(kw_only=True, eq=False)
class _Server:
    config: ScopedServerConfig
    connection: McpConnection | None = None
    tools: list[McpTool] = field(default_factory=list)
    failure: str | None = None
    """Why the last start failed; the server stays ``failed`` until ``reconnect``."""

    @property
    def status(self) -> ServerStatus:
        if self.failure is not None:
            return "failed"
        if self.connection is None:
            return "pending"
        return self.connection.status

    @property
    def error(self) -> str | None:
        if self.failure is not None:
            return self.failure
        return self.connection.error if self.connection else None


class McpManager:
    """Owns the MCP servers of one session. Use ``from_config`` to read ``.mcp.json`` & co."""

    def __init__(
        self,
        *,
        servers: Mapping[str, ScopedServerConfig | McpServerConfig | Mapping[str, Any]] | None = None,
        settings: McpSettings | None = None,
        cwd: Path | None = None,
        config_issues: list[ConfigIssue] | None = None,
    ) -> None:
        self.settings = settings or McpSettings.from_env()
        self.cwd = cwd
        self.config_issues: list[ConfigIssue] = list(config_issues or [])
        """Problems found in the config files (bad JSON, malformed entries)."""
        self.untrusted_servers: tuple[str, ...] = ()
        """``.mcp.json`` servers not started because the folder is not trusted."""
        self._servers: dict[str, _Server] = {}
        self._lock = asyncio.Lock()
        self._starting: dict[str, asyncio.Task[None]] = {}
        """Starts going on in the background (``start_within``), by server name."""
        for name, config in (servers or {}).items():
            if isinstance(config, ScopedServerConfig):
                if problem := server_name_conflict(name, list(self._servers)):
                    self.config_issues.append(ConfigIssue(source=str(config.source or config.scope), server=name, message=problem, level="warning"))
                    continue
                self._servers[name] = _Server(config=config)
            else:
                self.add_server(name, config, scope="runtime")

    @classmethod
    def from_config(
        cls,
        *,
        cwd: Path,
        user_config_path: Path | None = None,
        settings: McpSettings | None = None,
        include_project: bool = True,
    ) -> McpManager:
        """Servers from ``~/.claude.json`` (or ``user_config_path``) and ``<cwd>/.mcp.json``
        (only when ``include_project``: the folder is trusted)."""
        loaded = load_mcp_config(cwd=cwd, user_config_path=user_config_path, include_project=include_project)
        manager = cls(servers=loaded.servers, settings=settings, cwd=cwd, config_issues=loaded.issues)
        manager.untrusted_servers = loaded.untrusted
        return manager

    # --- configuration -------------------------------------------------------------------
    def add_server(
        self, name: str, config: McpServerConfig | Mapping[str, Any], *, scope: ConfigScope = "runtime"
    ) -> None:
        """Register a server (``.mcp.json`` entry shape or a config object).

        It connects at the next ``ensure_started()`` / ``refresh()``. Raises
        ``ConfigurationError`` for a malformed config or a name already in use (remove it
        first).
        """
        if not name or not isinstance(name, str):
            raise ConfigurationError("MCP server name must be a non-empty string")
        if name in self._servers:
            raise ConfigurationError(f"MCP server {name!r} already exists; remove it first")
        if problem := server_name_conflict(name, list(self._servers)):
            raise ConfigurationError(problem)
        parsed = parse_server_config(config)
        self._servers[name] = _Server(config=ScopedServerConfig(name=name, config=parsed, scope=scope))

    async def remove_server(self, name: str) -> bool:
        """Disconnect and forget a server; its tools leave the pool. False if unknown."""
        await self._cancel_starts([name])
        async with self._lock:  # not while it is being started: that would orphan its process
            server = self._servers.pop(name, None)
            if server is None:
                return False
            if server.connection is not None:
                await server.connection.aclose()
            return True

    def list_servers(self) -> list[McpServerState]:
        """Every server with its status, tool count and last error, sorted by name.

        Server entries that could not be parsed are listed as ``failed`` too.
        """
        rows = [
            McpServerState(
                name=name,
                status=s.status,
                scope=s.config.scope,
                transport=s.config.config.type,
                tool_count=len(s.tools) if s.status == "connected" else 0,
                error=s.error,
                source=s.config.source,
            )
            for name, s in self._servers.items()
        ]
        for issue in self.config_issues:
            if issue.server and issue.level == "error" and issue.server not in self._servers:
                rows.append(
                    McpServerState(
                        name=issue.server,
                        status="failed",
                        scope=None,
                        transport=None,
                        error=f"invalid configuration in {issue.source}: {issue.message}",
                    )
                )
        return sorted(rows, key=lambda r: r.name)

    # --- lifecycle -----------------------------------------------------------------------
    async def ensure_started(self) -> None:
        """Connect every server not started yet, concurrently. Never raises for a server."""
        if self._starting:  # started in the background: wait for them too
            await asyncio.wait(list(self._starting.values()))
        async with self._lock:
            await self._gather(self._start(s) for s in self._servers.values() if s.status in ("pending", "closed"))

    async def start_within(self, seconds: float) -> None:
        """Start every server not started yet, concurrently and in the background, and wait for
        them at most ``seconds``; the ones still connecting then finish on their own (their
        tools join at the next :meth:`tools`). Never raises for a server."""
        async with self._lock:
            for name, server in self._servers.items():
                if server.status in ("pending", "closed") and name not in self._starting:
                    task = asyncio.ensure_future(self._start(server))
                    self._starting[name] = task
                    task.add_done_callback(lambda done, name=name: self._started(name, done))
        starting = list(self._starting.values())
        if starting:
            await asyncio.wait(starting, timeout=seconds)

    def _started(self, name: str, task: asyncio.Task[None]) -> None:
        if self._starting.get(name) is task:
            del self._starting[name]
        if not task.cancelled() and task.exception() is not None:
            logger.warning("MCP: unexpected error while starting %s: %s", name, describe_exception(task.exception()))  # type: ignore[arg-type]

    def starting(self) -> list[str]:
        """Servers still connecting in the background."""
        return sorted(self._starting)

    async def _cancel_starts(self, names: Collection[str] | None = None) -> None:
        tasks = [task for name, task in list(self._starting.items()) if names is None or name in names]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)

    async def refresh(self) -> None:
        """Between turns: start new servers, reconnect dead ones, re-list changed tool lists."""
        async with self._lock:
            jobs = []
            for name, server in self._servers.items():
                if name in self._starting:  # still connecting in the background
                    continue
                status = server.status
                if status in ("pending", "closed"):
                    jobs.append(self._start(server))
                elif status == "disconnected":
                    jobs.append(self._restart(server))
                elif status == "connected" and server.connection is not None and server.connection.tools_dirty:
                    jobs.append(self._relist(server))
            await self._gather(jobs)

    async def reconnect(self, name: str) -> McpServerState:
        """Close and reconnect one server (also one that failed to start)."""
        async with self._lock:
            server = self._servers.get(name)
            if server is None:
                raise ConfigurationError(f"no MCP server named {name!r}")
            await self._cancel_starts([name])
            await self._restart(server)
        return next(row for row in self.list_servers() if row.name == name)

    async def aclose(self) -> None:
        """Close every connection (status ``closed``); ``ensure_started()`` reopens them.

        Servers still connecting are cancelled first, so closing never waits out a
        connect timeout.
        """
        await self._cancel_starts()
        await self._close_connections()
        async with self._lock:  # let starts in flight notice, then close what they opened
            await self._close_connections()
            for server in self._servers.values():
                server.tools = []

    async def __aenter__(self) -> McpManager:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    # --- what the session reads ------------------------------------------------------------
    def tools(self) -> list[McpTool]:
        """The tools of every connected server (servers in name order, tools as listed)."""
        servers = [self._servers[name] for name in sorted(self._servers)]
        return [t for s in servers if s.status == "connected" for t in s.tools]

    def instructions(self) -> dict[str, str]:
        """Each connected server's ``instructions`` from its initialize result (if any)."""
        out: dict[str, str] = {}
        for name in sorted(self._servers):
            conn = self._servers[name].connection
            if conn is not None and conn.is_connected and conn.instructions and conn.instructions.strip():
                out[name] = conn.instructions.strip()
        return out

    def connection(self, name: str) -> McpConnection | None:
        """The live connection of a server (for diagnostics and tests)."""
        server = self._servers.get(name)
        return server.connection if server else None

    async def call_mcp_tool(self, server: str, tool: str, arguments: dict[str, Any]) -> mt.CallToolResult:
        """Call ``tool`` on ``server``; failures become the ``ToolError`` the model reads."""
        entry = self._servers.get(server)
        if entry is None:
            raise ToolError(f"MCP server {server!r} is no longer configured")
        conn = entry.connection
        if conn is None or not conn.is_connected:
            detail = f": {entry.error}" if entry.error else ""
            raise ToolError(
                f"MCP server {server!r} is {entry.status}{detail}. The tool call did not run; "
                "the server is reconnected between turns."
            )
        try:
            return await conn.call_tool(tool, arguments, timeout=self.settings.call_timeout)
        except Exception as exc:
            from nb_agent.mcp.tool import call_failure  # loaded with the connection

            raise call_failure(server, tool, exc) from exc

    # --- internals -----------------------------------------------------------------------
    async def _close_connections(self) -> None:
        connections = [s.connection for s in self._servers.values() if s.connection is not None]
        await asyncio.gather(*(c.aclose() for c in connections), return_exceptions=True)

    async def _gather(self, jobs: Any) -> None:
        results = await asyncio.gather(*jobs, return_exceptions=True)
        for result in results:
            if isinstance(result, BaseException) and not isinstance(result, Exception):
                raise result  # cancellation / abort: not a server failure
            if isinstance(result, Exception):
                logger.warning("MCP: unexpected error while managing servers: %s", describe_exception(result))

    async def _start(self, server: _Server) -> None:
        from nb_agent.mcp.connection import McpConnection  # the MCP SDK, at the first server's start

        name = server.config.name
        conn = McpConnection(
            name=name,
            config=server.config.config,
            connect_timeout=self.settings.connect_timeout,
            cwd=self.cwd,
        )
        server.connection = conn
        server.failure = None
        server.tools = []
        try:
            await conn.connect()
            server.tools = await self._list_tools(server, conn)
        except asyncio.CancelledError:
            await conn.aclose()
            raise
        except Exception as exc:  # noqa: BLE001 - a failing server is reported, not raised
            if conn.status == "closed":  # aclose() while it was starting
                server.tools = []
                return
            if isinstance(exc, asyncio.TimeoutError) and conn.is_connected:
                reason = f"listing tools timed out after {self.settings.connect_timeout:g} s"
            else:
                reason = conn.error or describe_exception(exc)
            server.failure = reason
            server.tools = []
            await conn.aclose()
            logger.info("MCP server %s failed to start: %s", name, server.failure)

    async def _restart(self, server: _Server) -> None:
        if server.connection is not None:
            await server.connection.aclose()
        await self._start(server)

    async def _relist(self, server: _Server) -> None:
        conn = server.connection
        assert conn is not None
        try:
            server.tools = await self._list_tools(server, conn)
        except Exception as exc:  # noqa: BLE001
            logger.info("MCP server %s: re-listing tools failed: %s", server.config.name, describe_exception(exc))

    async def _list_tools(self, server: _Server, conn: McpConnection) -> list[McpTool]:
        from nb_agent.mcp.tool import McpTool

        definitions = await asyncio.wait_for(conn.list_tools(), self.settings.connect_timeout)
        tools: list[McpTool] = []
        seen: set[str] = set()
        for definition in definitions:
            tool = McpTool(
                server_name=server.config.name,
                definition=definition,
                caller=self,
                max_output_tokens=self.settings.max_output_tokens,
            )
            if tool.name not in seen:  # two raw names can normalise to one
                seen.add(tool.name)
                tools.append(tool)
        return tools
