"""``sandbox.network.allowedDomains``: sandboxed commands reach allowed hosts through nb_agent's
filtering proxy and nothing else; the refusal names the setting."""

from __future__ import annotations

import http.server
import socketserver
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from nb_agent.abort import AbortController
from nb_agent.testing.wrong_classifier import EverythingReadOnlyBash
from nb_agent.tools.base import ToolSession, ToolUseContext
from nb_agent.tools.bash.sandbox import NetworkSettings, SandboxRuntime, SandboxSettings
from nb_agent.tools.bash.sandbox.proxy import host_allowed
from nb_agent.tools.bash.tool import BashInput
from nb_agent.tools.services import ToolServices


@pytest.fixture
def host_server() -> Iterator[tuple[int, list[str]]]:
    hits: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            hits.append(self.path)
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"hello from the host\n")

        def log_message(self, *args: object) -> None:
            pass

    server = socketserver.TCPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield server.server_address[1], hits
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize(
    ("host", "allowed", "expected"),
    [
        ("example.com", ["example.com"], True), ("EXAMPLE.com.", ["example.com"], True), ("api.example.com", ["example.com"], False),
        ("api.example.com", ["*.example.com"], True), ("example.com", ["*.example.com"], False),
        ("evilexample.com", ["*.example.com"], False), ("example.com.evil.net", ["example.com"], False), ("127.0.0.1", ["localhost"], False),
        # the same canonical comparison as WebFetch(domain:) rules
        ("xn--bcher-kva.example", ["bücher.example"], True), ("BÜCHER.example", ["xn--bcher-kva.example"], True),
        ("127.0.0.1", ["*.0.0.1"], False), ("10.1.2.3", ["*.2.3"], False), ("2130706433", ["127.0.0.1"], False),
        ("0x7f.1", ["127.0.0.1"], False), ("127.1", ["127.0.0.1"], False), ("::ffff:127.0.0.1", ["127.0.0.1"], True),
        ("::1", ["[::1]"], True), ("a.example.com", ["*.*.com"], False),
    ],
)  # fmt: skip
def test_host_matching(host: str, allowed: list[str], expected: bool) -> None:
    assert host_allowed(host, allowed) is expected


@pytest.mark.usefixtures("needs_sandbox")
async def test_only_allowed_domains_are_reachable(project: Path, host_server: tuple[int, list[str]]) -> None:
    port, hits = host_server
    runtime = SandboxRuntime(project_dir=project, settings=SandboxSettings(network=NetworkSettings(allowed_domains=("localhost",))))
    ctx = ToolUseContext(abort_controller=AbortController(), session=ToolSession(cwd=project), services=ToolServices(sandbox=runtime))
    fetch = "python3 -c \"import urllib.request,sys; print(urllib.request.urlopen(sys.argv[1], timeout=10).read().decode())\" "
    allowed = await EverythingReadOnlyBash().call(BashInput(command=fetch + f"http://localhost:{port}/ok"), ctx, lambda _: None)
    assert allowed.data.sandboxed and allowed.data.exit_code == 0 and "hello from the host" in allowed.data.output
    refused = await EverythingReadOnlyBash().call(BashInput(command=fetch + f"http://127.0.0.1:{port}/no"), ctx, lambda _: None)
    assert refused.data.exit_code and "403" in refused.data.output
    assert "Sandbox: this command ran" in refused.data.to_text() and "localhost through an HTTP proxy" in refused.data.to_text()
    direct = await EverythingReadOnlyBash().call(
        BashInput(command=f"python3 -c \"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=3)\""), ctx, lambda _: None
    )
    assert direct.data.exit_code  # without the proxy there is no way out
    assert hits == ["/ok"] and runtime.blocked_hosts == ["127.0.0.1"]
