"""A TCP proxy the test controls, standing where JupyterHub's proxy stands (between the browser
and the Jupyter server): it forwards bytes both ways until told to hold what the server sends
on the kernels' websockets (:meth:`StallingProxy.stall`: data in flight, as on a socket about
to time out) and to drop those websockets (:meth:`StallingProxy.drop`: what it held is lost,
as when a proxy closes an idle websocket). The browser then reconnects through it as it would
through the real one. Other connections (HTTP requests, other websockets) go through untouched.
"""

from __future__ import annotations

import asyncio
import re
import socket
import threading
from dataclasses import dataclass, field

CONNECT_TIMEOUT_S = 10
_KERNEL_CHANNELS = re.compile(rb"^GET \S*/api/kernels/[^/ ]+/channels[? ]")


@dataclass(eq=False)  # kept in a set, by identity
class _Pipe:
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    upstream_reader: asyncio.StreamReader
    upstream_writer: asyncio.StreamWriter
    held: list[bytes] = field(default_factory=list)
    kernel_socket: bool = False
    """The connection is a kernel's websocket (``GET /api/kernels/<id>/channels``)."""

    def close(self) -> None:
        for writer in (self.writer, self.upstream_writer):
            transport = writer.transport
            transport.abort()  # no FIN handshake, nothing flushed: as a proxy that gives up


class StallingProxy:
    """``127.0.0.1:port`` → ``127.0.0.1:target_port``, run on a thread of its own."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.port = 0
        self.dropped = 0
        """Connections dropped so far."""
        self.held_bytes = 0
        """Bytes from the server held since the last :meth:`stall` (lost by :meth:`drop`)."""
        self._stalled = False
        self._pipes: set[_Pipe] = set()
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, name="stalling-proxy", daemon=True)
        self._server: asyncio.Server | None = None

    # --- control, from the test's thread ---------------------------------------------------
    def start(self) -> StallingProxy:
        self._thread.start()
        if not self._ready.wait(CONNECT_TIMEOUT_S):
            raise RuntimeError("the proxy did not start")
        return self

    def stall(self) -> None:
        """Hold what the server sends on kernel websockets from now on (the client's bytes still go through)."""
        self._call(self._set_stalled, True)

    def drop(self) -> None:
        """Close every kernel websocket at once, losing what was held; forward normally again."""
        self._call(self._drop)

    def stop(self) -> None:
        asyncio.run_coroutine_threadsafe(self._shutdown(), self._loop).result(CONNECT_TIMEOUT_S)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(CONNECT_TIMEOUT_S)
        self._loop.close()

    def _call(self, fn, *args) -> None:
        done = threading.Event()

        def run() -> None:
            try:
                fn(*args)
            finally:
                done.set()

        self._loop.call_soon_threadsafe(run)
        done.wait(CONNECT_TIMEOUT_S)

    # --- on the proxy's loop -----------------------------------------------------------------
    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        self.port = sock.getsockname()[1]
        self._server = self._loop.run_until_complete(asyncio.start_server(self._accept, sock=sock))
        self._ready.set()
        self._loop.run_forever()

    def _set_stalled(self, stalled: bool) -> None:
        self._stalled = stalled
        self.held_bytes = 0

    def _drop(self) -> None:
        for pipe in [p for p in self._pipes if p.kernel_socket]:
            pipe.close()
            self._pipes.discard(pipe)
            self.dropped += 1
        self._stalled = False

    async def _shutdown(self) -> None:
        if self._server is not None:
            self._server.close()
        for pipe in self._pipes:
            pipe.close()
        self._pipes.clear()
        tasks = [t for t in asyncio.all_tasks(self._loop) if t is not asyncio.current_task()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            upstream_reader, upstream_writer = await asyncio.wait_for(
                asyncio.open_connection("127.0.0.1", self.target_port), CONNECT_TIMEOUT_S
            )
        except (OSError, asyncio.TimeoutError):
            writer.transport.abort()
            return
        pipe = _Pipe(reader, writer, upstream_reader, upstream_writer)
        self._pipes.add(pipe)
        await asyncio.gather(self._forward(pipe, upstream=True), self._forward(pipe, upstream=False), return_exceptions=True)
        self._pipes.discard(pipe)
        pipe.close()

    async def _forward(self, pipe: _Pipe, *, upstream: bool) -> None:
        try:
            await self._copy(pipe, upstream=upstream)
        except (ConnectionError, OSError):
            pass  # the other side went away, or the test dropped the connection

    async def _copy(self, pipe: _Pipe, *, upstream: bool) -> None:
        source, target = (pipe.reader, pipe.upstream_writer) if upstream else (pipe.upstream_reader, pipe.writer)
        while data := await source.read(65536):
            if upstream and not pipe.kernel_socket:
                pipe.kernel_socket = data.startswith(b"GET ") and _KERNEL_CHANNELS.match(data.split(b"\r\n", 1)[0]) is not None
            if not upstream and self._stalled and pipe.kernel_socket:
                pipe.held.append(data)
                self.held_bytes += len(data)
                continue
            if pipe.held and not upstream:
                target.write(b"".join(pipe.held))
                pipe.held.clear()
            target.write(data)
            await target.drain()
        if not target.transport.is_closing():
            target.transport.abort()


__all__ = ["StallingProxy"]
