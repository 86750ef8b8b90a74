"""nb_agent's filtering proxy: the sandbox's only way to the network when
``sandbox.network.allowedDomains`` is set (Claude Code's design, without socat).

An HTTP proxy (``CONNECT host:port`` for HTTPS and anything tunnelled, absolute-URI
requests for plain HTTP) that lets through only hosts matching the allow-list and answers
everything else ``403`` with a message naming the setting. It runs on its own event loop
in a daemon thread, independent of the kernel's loop, and listens on a Unix socket
(Linux: bound into the sandbox, where :mod:`.bridge` exposes it on loopback) or on a
loopback TCP port (macOS: the Seatbelt profile allows that one port). Programs that ignore
``HTTP(S)_PROXY`` get no network at all.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import socket
import tempfile
import threading
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path

from nb_agent.permissions.domains import domain_matches

__all__ = ["DomainProxy", "host_allowed"]

_BLOCKED = "nb_agent sandbox: {host} is not in sandbox.network.allowedDomains"
_HEADER_LIMIT = 64 * 1024


def host_allowed(host: str, allowed: Sequence[str]) -> bool:
    """``example.com`` matches itself only; ``*.example.com`` matches its subdomains. Both
    sides are compared as ``WebFetch(domain:…)`` rules are (the same entries feed both):
    case, trailing dot and IDNA spellings agree, IP addresses only match themselves and
    never through a wildcard, and numeric spellings of an address match nothing."""
    return any(domain_matches(entry, host) for entry in allowed)


class DomainProxy:
    """Started once per sandbox runtime; :attr:`socket_path` or :attr:`port` is where it listens."""

    def __init__(self, allowed_domains: Sequence[str], *, unix: bool = True, resolve: Resolver | None = None) -> None:
        self.allowed = tuple(allowed_domains)
        self.unix = unix
        self._resolve = resolve or _resolve
        self.socket_path: Path | None = None
        self.port: int = 0
        self.blocked: list[str] = []
        """Hosts refused so far (for tests and ``%agent sandbox``)."""
        self._loop: asyncio.AbstractEventLoop | None = None
        self._ready = threading.Event()
        self._error: BaseException | None = None

    def start(self) -> DomainProxy:
        threading.Thread(target=self._run, name="nb_agent-sandbox-proxy", daemon=True).start()
        self._ready.wait(10)
        if self._error is not None:
            raise self._error
        return self

    def _run(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        try:
            loop.run_until_complete(self._listen())
        except BaseException as exc:  # noqa: BLE001 - handed to start()
            self._error = exc
            self._ready.set()
            return
        self._ready.set()
        loop.run_forever()

    async def _listen(self) -> None:
        if self.unix:
            directory = Path(tempfile.mkdtemp(prefix="nb_agent-proxy-"))
            self.socket_path = directory / "proxy.sock"
            await asyncio.start_unix_server(self._handle, path=str(self.socket_path))
        else:
            server = await asyncio.start_server(self._handle, host="127.0.0.1", port=0)
            self.port = server.sockets[0].getsockname()[1]

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
            writer.close()
            return
        if len(head) > _HEADER_LIMIT:
            writer.close()
            return
        request_line, _, rest = head.partition(b"\r\n")
        parts = request_line.decode("latin-1").split()
        if len(parts) != 3:
            await self._refuse(writer, "?", status="400 Bad Request")
            return
        method, target, version = parts
        if method.upper() == "CONNECT":
            host, _, port = target.rpartition(":")
            await self._tunnel(reader, writer, host.strip("[]"), int(port or 443), reply=True, first=b"")
            return
        if not target.startswith("http://"):
            await self._refuse(writer, target, status="400 Bad Request")
            return
        authority, slash, path = target[len("http://") :].partition("/")
        host, _, port = authority.partition(":")
        first = f"{method} {slash}{path} {version}\r\n".encode("latin-1") + rest
        await self._tunnel(reader, writer, host, int(port or 80), reply=False, first=first)

    async def _tunnel(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, host: str, port: int, *, reply: bool, first: bytes
    ) -> None:
        if not host_allowed(host, self.allowed):
            self.blocked.append(host)
            await self._refuse(writer, host)
            return
        try:
            address = await self._vetted_address(host, port)
        except (OSError, asyncio.TimeoutError) as exc:
            await self._refuse(writer, host, status="502 Bad Gateway", text=f"nb_agent sandbox proxy: cannot resolve {host} ({exc})")
            return
        if address is None:
            self.blocked.append(host)
            await self._refuse(writer, host, text=_REBOUND.format(host=host))
            return
        try:
            up_reader, up_writer = await asyncio.wait_for(asyncio.open_connection(address, port), 30)
        except (OSError, asyncio.TimeoutError) as exc:
            await self._refuse(writer, host, status="502 Bad Gateway", text=f"nb_agent sandbox proxy: cannot reach {host}:{port} ({exc})")
            return
        if reply:
            writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
        else:
            up_writer.write(first)
        await asyncio.gather(_copy(reader, up_writer), _copy(up_reader, writer))

    async def _vetted_address(self, host: str, port: int) -> str | None:
        """The address to connect to, resolved once here (so it cannot change between the
        check and the connection), or None when an allowed *name* leads to a loopback,
        private, link-local or otherwise non-public address (DNS rebinding: the proxy runs
        outside the sandbox, next to the kernel's and Jupyter's own ports). An allowed IP
        address, or ``localhost``, is taken as written: the user named that place."""
        if _is_ip(host):
            return host
        addresses = await asyncio.wait_for(self._resolve(host, port), 30)
        if not addresses:
            raise OSError(f"no address for {host}")
        if host.lower().rstrip(".") == "localhost" or host.lower().rstrip(".").endswith(".localhost"):
            return addresses[0]
        if not all(ipaddress.ip_address(a.split("%")[0]).is_global for a in addresses):
            return None
        return addresses[0]

    async def _refuse(self, writer: asyncio.StreamWriter, host: str, *, status: str = "403 Forbidden", text: str | None = None) -> None:
        body = (text or _BLOCKED.format(host=host)).encode() + b"\n"
        writer.write(f"HTTP/1.1 {status}\r\nContent-Type: text/plain\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode() + body)
        with contextlib.suppress(ConnectionError):
            await writer.drain()
        writer.close()


Resolver = Callable[[str, int], Awaitable[list[str]]]
"""``(host, port) -> addresses``: how the proxy resolves an allowed name (tests give their own)."""
_REBOUND = "nb_agent sandbox: {host} resolves to a non-public address (loopback, private or link-local); refused"


async def _resolve(host: str, port: int) -> list[str]:
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


async def _copy(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except (ConnectionError, asyncio.IncompleteReadError):
        pass
    finally:
        with contextlib.suppress(Exception):
            writer.close()
