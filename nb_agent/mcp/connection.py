"""One MCP server connection, owned by a long-lived task (a "connection actor").

The SDK's transports and ``Client`` are anyio context managers whose task groups must be
entered and exited in the same task. So each connection runs in its own asyncio task that
holds ``async with Client(...)`` open for the connection's whole life; other tasks hand it
work through a memory stream and wait on a future. Each request runs as a child task of the
actor, so calls proceed concurrently, and a caller that is cancelled cancels only its own
request. Closing ends the request stream; the actor then leaves its context managers in
order (for stdio: close stdin, wait, then kill the server's process group).

We speak the handshake-era protocol (``initialize``; what Claude Code and today's servers
use): servers announce tool-list changes with a plain ``notifications/tools/list_changed``.
"""

from __future__ import annotations

import asyncio
import logging
import math
import os
import sys
import tempfile
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO, TypeVar

import anyio
import mcp_types as mt
from mcp import Client, MCPError, StdioServerParameters
from mcp.client.stdio import stdio_client

from nb_agent.errors import NbAgentError
from nb_agent.mcp.config import HttpServerConfig, McpServerConfig, StdioServerConfig
from nb_agent.mcp.state import DEFAULT_CONNECT_TIMEOUT, ServerStatus, describe_exception
from nb_agent.version import __version__

if sys.version_info < (3, 11):  # pragma: no cover
    from exceptiongroup import BaseExceptionGroup

logger = logging.getLogger(__name__)

CLOSE_TIMEOUT = 10.0
MAX_LIST_PAGES = 100
STDERR_TAIL_CHARS = 1_500

T = TypeVar("T")


class McpConnectionError(NbAgentError):
    """The server is not connected, or the connection broke during a request."""


def _is_connection_failure(exc: BaseException) -> bool:
    if isinstance(exc, MCPError):
        return exc.code == mt.CONNECTION_CLOSED
    if isinstance(exc, BaseExceptionGroup):
        return any(_is_connection_failure(e) for e in exc.exceptions)
    transport_errors: tuple[type[BaseException], ...] = (OSError, anyio.BrokenResourceError, anyio.ClosedResourceError)
    try:
        import httpx2

        transport_errors += (httpx2.TransportError,)
    except ImportError:  # pragma: no cover - httpx2 ships with mcp
        pass
    return isinstance(exc, transport_errors)


class _EofWatchingStream:
    """Wraps a transport's read stream to notice the moment the server goes away."""

    def __init__(self, inner: Any, on_eof: Callable[[], None]) -> None:
        self._inner = inner
        self._on_eof = on_eof

    @property
    def last_context(self) -> Any:
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> Any:
        try:
            return await self._inner.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
            self._on_eof()
            raise

    async def aclose(self) -> None:
        await self._inner.aclose()

    def __aiter__(self) -> _EofWatchingStream:
        return self

    async def __anext__(self) -> Any:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def __aenter__(self) -> _EofWatchingStream:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()


@asynccontextmanager
async def _watch_eof(transport: Any, on_eof: Callable[[], None]) -> AsyncIterator[tuple[Any, Any]]:
    async with transport as (read_stream, write_stream):
        yield _EofWatchingStream(read_stream, on_eof), write_stream


@dataclass(kw_only=True, eq=False)
class _Request:
    op: Callable[[Client], Awaitable[Any]]
    future: asyncio.Future[Any]
    scope: anyio.CancelScope | None = None


class McpConnection:
    """A connection to one server: ``connect()``, then ``list_tools``/``call_tool``, ``aclose()``.

    Single-use: after a failure or close, make a new one (``McpManager`` does).
    """

    def __init__(
        self,
        *,
        name: str,
        config: McpServerConfig,
        connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
        cwd: Path | None = None,
        on_tools_changed: Callable[[], None] | None = None,
    ) -> None:
        self.name = name
        self.config = config
        self.connect_timeout = connect_timeout
        self.cwd = cwd
        self.status: ServerStatus = "pending"
        self.error: str | None = None
        self.instructions: str | None = None
        self.server_info: mt.Implementation | None = None
        self.tools_dirty = False
        """Set when the server sent ``notifications/tools/list_changed``; cleared by ``list_tools``."""
        self.stderr_path: Path | None = None
        """Where a stdio server's stderr goes (its tail is quoted in error messages)."""
        self._on_tools_changed = on_tools_changed
        self._send, self._receive = anyio.create_memory_object_stream[_Request](math.inf)
        self._pending: set[_Request] = set()
        self._task: asyncio.Task[None] | None = None
        self._lifetime: anyio.CancelScope | None = None
        self._closing = False

    # --- public API ----------------------------------------------------------------------
    async def connect(self) -> None:
        """Start the actor and wait for the handshake; raises ``McpConnectionError`` on failure."""
        if self._task is not None:
            raise RuntimeError(f"MCP connection {self.name!r} was already started")
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.status = "connecting"
        self._task = asyncio.create_task(self._run(ready), name=f"nb_agent-mcp-{self.name}")
        try:
            await asyncio.shield(ready)
        except asyncio.CancelledError:
            await self.aclose()
            raise
        except BaseException as exc:  # every failure is reported the same way
            if self._closing:  # aclose() during the handshake: closed, not failed
                self.status = "closed"
                await self._join(CLOSE_TIMEOUT)
                raise McpConnectionError(f"MCP server {self.name!r} was closed while connecting") from exc
            self.status = "failed"
            reason = describe_exception(exc)
            if _is_connection_failure(exc):
                reason = f"the server closed the connection during startup ({reason})"
            self.error = self._with_stderr(reason)
            await self._join(CLOSE_TIMEOUT)
            raise McpConnectionError(self.error) from exc

    async def list_tools(self) -> list[mt.Tool]:
        """Every tool the server offers (all pages); clears ``tools_dirty``."""
        self.tools_dirty = False

        async def op(client: Client) -> list[mt.Tool]:
            tools: list[mt.Tool] = []
            cursor: str | None = None
            for _ in range(MAX_LIST_PAGES):
                page = await client.list_tools(cursor=cursor)
                tools.extend(page.tools)
                cursor = page.next_cursor
                if not cursor:
                    break
            return tools

        return await self._request(op)

    async def call_tool(self, name: str, arguments: dict[str, Any], *, timeout: float | None = None) -> mt.CallToolResult:
        """Call a tool; protocol errors raise ``MCPError``, a broken link ``McpConnectionError``."""
        return await self._request(lambda client: client.call_tool(name, arguments, read_timeout_seconds=timeout))

    async def aclose(self) -> None:
        """Close the connection and wait for the actor (and a stdio server process) to end."""
        self._closing = True
        self._send.close()
        if self._task is None:
            self._receive.close()
        else:
            if self.status == "connecting" and self._lifetime is not None:
                self._lifetime.cancel()
            await self._join(CLOSE_TIMEOUT)
        if self.status in ("pending", "connecting", "connected"):
            self.status = "closed"
        self._remove_stderr_file()

    @property
    def is_connected(self) -> bool:
        return self.status == "connected"

    def stderr_tail(self) -> str:
        """The end of a stdio server's stderr ("" for remote servers or an empty log)."""
        if self.stderr_path is None:
            return ""
        try:
            with open(self.stderr_path, encoding="utf-8", errors="replace") as f:
                f.seek(0, os.SEEK_END)
                size = f.tell()
                f.seek(max(0, size - STDERR_TAIL_CHARS * 2))
                return f.read()[-STDERR_TAIL_CHARS:].strip()
        except OSError:
            return ""

    # --- requests ------------------------------------------------------------------------
    async def _request(self, op: Callable[[Client], Awaitable[T]]) -> T:
        if self.status != "connected":
            raise McpConnectionError(self._unavailable_message())
        request = _Request(op=op, future=asyncio.get_running_loop().create_future())
        self._pending.add(request)
        try:
            self._send.send_nowait(request)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            self._pending.discard(request)
            raise McpConnectionError(self._unavailable_message()) from None
        try:
            return await request.future
        except asyncio.CancelledError:
            # The caller gave up (user abort): cancel just this request in the actor.
            if request.scope is not None:
                request.scope.cancel()
            raise
        except McpConnectionError:
            raise
        except Exception as exc:
            if _is_connection_failure(exc):
                self._mark_disconnected(f"connection lost during a request ({describe_exception(exc)})")
                raise McpConnectionError(self._unavailable_message()) from exc
            raise
        finally:
            self._pending.discard(request)

    async def _serve(self, client: Client, request: _Request) -> None:
        with anyio.CancelScope() as scope:
            request.scope = scope
            if request.future.done():
                return
            try:
                result = await request.op(client)
            except Exception as exc:  # noqa: BLE001 - handed to the caller, who awaits the future
                if not request.future.done():
                    request.future.set_exception(exc)
            else:
                if not request.future.done():
                    request.future.set_result(result)

    def _fail_pending(self, message: str) -> None:
        for request in list(self._pending):
            if not request.future.done():
                request.future.set_exception(McpConnectionError(message))
        self._pending.clear()

    # --- the actor -----------------------------------------------------------------------
    async def _run(self, ready: asyncio.Future[None]) -> None:
        if self._closing:  # closed before the task got to run
            self._receive.close()
            ready.set_exception(McpConnectionError("connection closed while connecting"))
            return
        try:
            with anyio.CancelScope() as lifetime:
                self._lifetime = lifetime
                # The connect timeout is a deadline on the whole lifetime scope (lifted once
                # connected): a scope around the handshake alone would not nest with the
                # task groups the handshake opens.
                lifetime.deadline = anyio.current_time() + self.connect_timeout
                async with AsyncExitStack() as stack:
                    client = await self._open(stack)
                    lifetime.deadline = math.inf
                    self._connected(client)
                    ready.set_result(None)
                    async with anyio.create_task_group() as tg:
                        async with self._receive:
                            async for request in self._receive:
                                tg.start_soon(self._serve, client, request)
                        tg.cancel_scope.cancel()
            if not ready.done():
                reason = "closed while connecting" if self._closing else f"timed out after {self.connect_timeout:g} s"
                ready.set_exception(McpConnectionError(f"connection {reason}"))
        except BaseException as exc:  # the actor must never die silently
            if not ready.done():
                ready.set_exception(exc)
            elif not self._closing:
                self._mark_disconnected(describe_exception(exc))
            if not isinstance(exc, Exception):
                raise
        finally:
            self._receive.close()
            self._fail_pending(self._unavailable_message())
            if self.status == "connected":
                self.status = "closed" if self._closing else "disconnected"

    async def _open(self, stack: AsyncExitStack) -> Client:
        config = self.config
        if isinstance(config, StdioServerConfig):
            transport: Any = stdio_client(self._stdio_parameters(config), errlog=self._open_stderr_log(stack))
        elif isinstance(config, HttpServerConfig) and config.type == "sse":
            from mcp.client.sse import sse_client

            transport = sse_client(config.url, headers=dict(config.headers) or None)
        else:
            from mcp.client.streamable_http import streamable_http_client
            from mcp.shared._httpx_utils import create_mcp_http_client

            http_client = await stack.enter_async_context(create_mcp_http_client(headers=dict(config.headers) or None))
            transport = streamable_http_client(config.url, http_client=http_client)
        client = Client(
            _watch_eof(transport, self._on_eof),
            mode="legacy",
            message_handler=self._on_message,
            cache=None,  # tool lists are re-fetched on list_changed; no stale cache to evict
            client_info=mt.Implementation(name="nb_agent", version=__version__),
        )
        await stack.enter_async_context(client)
        return client

    def _stdio_parameters(self, config: StdioServerConfig) -> StdioServerParameters:
        # Like Claude Code, a stdio server inherits the whole environment (PATH for npx,
        # tokens exported in the shell); the config's env wins.
        env = {**os.environ, **config.env}
        cwd = config.cwd or (str(self.cwd) if self.cwd else None)
        return StdioServerParameters(command=config.command, args=list(config.args), env=env, cwd=cwd)

    def _open_stderr_log(self, stack: AsyncExitStack) -> TextIO:
        # A real file: the subprocess needs a file descriptor (a notebook's sys.stderr has none).
        fd, path = tempfile.mkstemp(prefix=f"nb_agent_mcp_{self.name}_", suffix=".log")
        os.close(fd)
        self.stderr_path = Path(path)
        log = open(path, "a", encoding="utf-8")  # closed by the exit stack
        stack.callback(log.close)
        return log

    def _connected(self, client: Client) -> None:
        self.status = "connected"
        self.error = None
        self.instructions = client.instructions
        self.server_info = client.server_info

    async def _on_message(self, message: Any) -> None:
        if getattr(message, "method", None) == "notifications/tools/list_changed":
            self.tools_dirty = True
            if self._on_tools_changed is not None:
                self._on_tools_changed()
        elif isinstance(message, Exception):
            logger.debug("MCP server %s: transport error: %s", self.name, describe_exception(message))

    def _on_eof(self) -> None:
        if not self._closing:
            self._mark_disconnected("the server closed the connection")

    def _mark_disconnected(self, reason: str) -> None:
        if self._closing or self.status not in ("connected", "connecting"):
            return
        self.status = "disconnected"
        self.error = self._with_stderr(reason)
        # Let the actor wind down now: nothing more can be sent on this connection.
        self._send.close()

    # --- helpers -------------------------------------------------------------------------
    async def _join(self, timeout: float) -> None:
        task = self._task
        if task is None or task.done():
            return
        try:
            await asyncio.wait_for(asyncio.shield(task), timeout)
            return
        except asyncio.TimeoutError:
            pass
        except BaseException:  # noqa: BLE001 - the actor already recorded its failure
            return
        if self._lifetime is not None:
            self._lifetime.cancel()
        try:
            await asyncio.wait_for(asyncio.shield(task), 5.0)
        except asyncio.TimeoutError:
            logger.warning("MCP server %s: connection task did not stop; cancelling it", self.name)
            task.cancel()
        except BaseException:  # noqa: BLE001
            pass

    def _unavailable_message(self) -> str:
        state = {"pending": "not started", "connecting": "still connecting"}.get(self.status, self.status)
        message = f"MCP server {self.name!r} is {state}"
        return f"{message}: {self.error}" if self.error else message

    def _with_stderr(self, message: str) -> str:
        tail = self.stderr_tail()
        return f"{message}\nServer stderr (last lines):\n{tail}" if tail else message

    def _remove_stderr_file(self) -> None:
        if self.stderr_path is not None:
            try:
                self.stderr_path.unlink()
            except OSError:
                pass
