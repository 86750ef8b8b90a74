"""A local web server for WebFetch tests, benches and demos (127.0.0.1 only).

Pages are routes: a path maps to a :class:`Page` (status, content type, body, extra
headers, a delay before answering, or a body sent slowly). Every request is recorded
(a POST with its body: http hooks' tests read what was sent).
Runs on its own thread; use it as a context manager::

    with LocalWebServer({"/": Page(body="<h1>Hi</h1>")}) as web:
        url = web.url("/")
"""

from __future__ import annotations

import http.server
import threading
import time
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, kw_only=True)
class Page:
    status: int = 200
    content_type: str = "text/html; charset=utf-8"
    body: bytes | str = b""
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    """Seconds before the response starts."""
    drip_s: float = 0.0
    """Seconds between 1 KiB chunks of the body (a slow page)."""
    send_length: bool = True

    @property
    def raw(self) -> bytes:
        return self.body.encode("utf-8") if isinstance(self.body, str) else self.body


def redirect(location: str, status: int = 301) -> Page:
    return Page(status=status, content_type="text/plain", body=b"moved", headers={"Location": location})


class _Handler(http.server.BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def do_GET(self) -> None:
        self._answer({"path": self.path, "headers": dict(self.headers.items())})

    def do_POST(self) -> None:  # http hooks POST their event (the body is recorded)
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        self._answer({"path": self.path, "headers": dict(self.headers.items()), "method": "POST", "body": body})

    def _answer(self, record: dict[str, Any]) -> None:
        owner = self.server.owner
        owner.requests.append(record)
        page = owner.routes.get(self.path.split("?", 1)[0]) or Page(status=404, content_type="text/plain", body=b"not found")
        if page.delay_s and owner.stopping.wait(page.delay_s):
            return
        try:
            self.send_response(page.status)
            self.send_header("Content-Type", page.content_type)
            if page.send_length:
                self.send_header("Content-Length", str(len(page.raw)))
            else:
                self.send_header("Connection", "close")
            for name, value in page.headers.items():
                self.send_header(name, value)
            self.end_headers()
            self._body(page, owner)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a test aborting the fetch)

    def _body(self, page: Page, owner: LocalWebServer) -> None:
        raw = page.raw
        if not page.drip_s:
            self.wfile.write(raw)
            return
        for start in range(0, len(raw), 1024):
            if owner.stopping.wait(page.drip_s):
                return
            self.wfile.write(raw[start : start + 1024])
            self.wfile.flush()


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    owner: LocalWebServer


class LocalWebServer:
    """Serves ``routes`` on ``127.0.0.1`` (a free port unless ``port`` is given) until stopped."""

    def __init__(self, routes: dict[str, Page] | None = None, *, host: str = "127.0.0.1", port: int = 0) -> None:
        self.routes: dict[str, Page] = dict(routes or {})
        self.requests: list[dict[str, Any]] = []
        self.stopping = threading.Event()
        self._server = _Server((host, port), _Handler)
        self._server.owner = self
        self._thread = threading.Thread(target=self._server.serve_forever, name="LocalWebServer", daemon=True)

    @property
    def port(self) -> int:
        return self._server.server_address[1]

    def url(self, path: str = "/", *, host: str = "127.0.0.1") -> str:
        return f"http://{host}:{self.port}{path}"

    def start(self) -> LocalWebServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> LocalWebServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def wait_for(predicate: Any, timeout_s: float = 5.0) -> bool:
    """Poll ``predicate`` until it is true or ``timeout_s`` passes (for thread-side effects)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.01)
    return bool(predicate())
