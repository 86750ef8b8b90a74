"""The filtering proxy checks what an allowed name resolves to (issue 21, suspected DNS
rebinding): it runs outside the sandbox, next to the kernel's and Jupyter's own ports, so an
allowed public name that resolves to loopback or a private address must not reach them.
The names resolve through a resolver the test gives (no real DNS); the local server records
every request that reaches it."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

from nb_agent.tools.bash.sandbox.proxy import DomainProxy

from .test_network_allowlist import host_server  # noqa: F401 - the fixture

ANSWERS = {
    "rebind.example": ["127.0.0.1"],
    "private.example.org": ["10.0.0.5"],
    "linklocal.example.org": ["169.254.169.254"],  # cloud metadata
    "v6.example": ["::1"],
    "mapped.example": ["::ffff:127.0.0.1"],
    "mixed.example": ["93.184.216.34", "127.0.0.1"],
    "localhost": ["127.0.0.1"],
}


async def _fake_resolve(host: str, port: int) -> list[str]:
    return ANSWERS[host.lower()]


@pytest.fixture
def proxy() -> Iterator[DomainProxy]:
    allowed = ["rebind.example", "*.example.org", "v6.example", "mapped.example", "mixed.example", "localhost"]
    proxy = DomainProxy(allowed, unix=True, resolve=_fake_resolve).start()
    yield proxy


def _through(proxy: DomainProxy, request: bytes) -> bytes:
    with socket.socket(socket.AF_UNIX) as client:
        client.settimeout(30)  # only "answered" vs "stuck"
        client.connect(str(proxy.socket_path))
        client.sendall(request)
        answer = b""
        while chunk := client.recv(65536):
            answer += chunk
            if b"\r\n\r\n" in answer and (b"403" in answer.split(b"\r\n")[0] or b"hello" in answer):
                break
        return answer


@pytest.mark.parametrize("host", ["rebind.example", "private.example.org", "linklocal.example.org", "v6.example", "mapped.example", "mixed.example"])
def test_an_allowed_name_that_resolves_to_a_local_address_is_refused(proxy, host_server, host: str) -> None:  # noqa: F811
    port, hits = host_server
    for request in (f"CONNECT {host}:{port} HTTP/1.1\r\nHost: {host}\r\n\r\n", f"GET http://{host}:{port}/x HTTP/1.1\r\nHost: {host}\r\n\r\n"):
        answer = _through(proxy, request.encode())
        assert answer.startswith(b"HTTP/1.1 403") and b"non-public address" in answer, answer
    assert hits == []


def test_localhost_named_by_the_user_still_reaches_it(proxy, host_server) -> None:  # noqa: F811
    port, hits = host_server
    answer = _through(proxy, f"GET http://localhost:{port}/ok HTTP/1.1\r\nHost: localhost\r\n\r\n".encode())
    assert b"hello from the host" in answer and hits == ["/ok"]
