"""A real HTTP server that speaks the Messages API wire protocol, driven by a ``Script``.

It also answers the cloud providers' forms of the same call (Vertex's ``:streamRawPredict``
with SSE, Bedrock's ``invoke-with-response-stream`` with AWS event-stream frames, Foundry's
resource prefix; see :mod:`nb_agent.testing.provider_wire`), so each provider's SDK client
can be tested over real HTTP.

It lets a test run the unmodified ``anthropic`` SDK (its HTTP client, SSE parser, error
mapping and retries) against scripted replies: ``POST /v1/messages`` answers with SSE when
the body says ``"stream": true`` and with a JSON ``Message`` otherwise. Each connection
is served by its own thread, so a slow stream never holds up another request.

    with FakeAnthropicServer([Reply(content=[text("hi")])]) as server:
        client = server.client()
        ...
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterable
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any
from urllib.parse import urlsplit

from nb_agent.model.prompt_cache import MAX_BREAKPOINTS, count_breakpoints
from nb_agent.testing.prompt_cache import PromptCacheSimulator
from nb_agent.testing.provider_wire import EVENT_STREAM_CONTENT_TYPE, bedrock_chunk, bedrock_exception, route
from nb_agent.testing.script import (
    ERROR_STATUS,
    ErrorReply,
    Reply,
    Script,
    StreamPlan,
    Turn,
    as_script,
    new_message_id,
    new_request_id,
    plan_stream,
    reply_message,
)

_JOIN_TIMEOUT = 5.0
_STOP_POLL_S = 0.05
"""How often a held stream looks whether the server is stopping."""


def _error_body(error_type: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": error_type, "message": message}}


class _HTTPServer(ThreadingHTTPServer):
    """Tracks its connections and handler threads so ``stop()`` can end them all."""

    daemon_threads = True
    block_on_close = False  # we join with a timeout ourselves

    def __init__(self, owner: FakeAnthropicServer) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.owner = owner
        self.stopping = threading.Event()
        self.connections: set[socket.socket] = set()
        self.handler_threads: set[threading.Thread] = set()
        self.registry_lock = threading.Lock()

    def process_request(self, request: Any, client_address: Any) -> None:
        thread = threading.Thread(
            target=self._serve_connection, args=(request, client_address), name="fake-anthropic-conn", daemon=True
        )
        with self.registry_lock:
            self.handler_threads.add(thread)
            self.connections.add(request)
        thread.start()

    def _serve_connection(self, request: Any, client_address: Any) -> None:
        try:
            self.process_request_thread(request, client_address)
        finally:
            with self.registry_lock:
                self.connections.discard(request)
                self.handler_threads.discard(threading.current_thread())

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that went away mid-response is routine here (aborted streams).
        pass

    def close_all(self) -> None:
        self.stopping.set()
        with self.registry_lock:
            connections, threads = list(self.connections), list(self.handler_threads)
        for conn in connections:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        for thread in threads:
            thread.join(_JOIN_TIMEOUT)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive + chunked, like the real API
    disable_nagle_algorithm = True  # small SSE writes must not wait for delayed ACKs
    server: _HTTPServer

    def log_message(self, format: str, *args: Any) -> None:
        pass

    # --- routing --------------------------------------------------------------------------

    def do_POST(self) -> None:
        path = urlsplit(self.path).path.rstrip("/")
        try:
            body = self._read_json()
        except ValueError as exc:
            self.send_json(400, _error_body("invalid_request_error", f"invalid JSON body: {exc}"))
            return
        cloud = route(path)
        if cloud is not None and isinstance(body, dict):
            wire, fields = cloud
            if fields["model"] == "count-tokens":
                self.send_json(200, {"input_tokens": max(1, len(json.dumps(body)) // 4)})
                return
            # the model and the streaming flag travel in the URL on Vertex and Bedrock
            self.server.owner._answer_messages(self, {**body, "model": fields["model"], "stream": fields["stream"] == "True"}, wire=wire)
        elif path.endswith("/v1/messages"):  # also under a Foundry resource's /anthropic prefix
            self.server.owner._answer_messages(self, body)
        elif path.endswith("/v1/messages/count_tokens"):
            self.send_json(200, {"input_tokens": max(1, len(json.dumps(body)) // 4)})
        else:
            self._not_found()

    def do_GET(self) -> None:
        self._not_found()

    def _not_found(self) -> None:
        self.send_json(404, _error_body("not_found_error", f"Not found: {self.command} {self.path}"))

    def _read_json(self) -> Any:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        return json.loads(raw) if raw else {}

    # --- responses ------------------------------------------------------------------------

    def send_json(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        payload = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(payload)))
        self.send_header("request-id", new_request_id())
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(payload)

    wire = "anthropic"
    """The wire format of the response being sent: ``anthropic`` (SSE, also Vertex) or ``bedrock``."""

    def start_sse(self) -> None:
        self.send_response(200)
        bedrock = self.wire == "bedrock"
        self.send_header("content-type", EVENT_STREAM_CONTENT_TYPE if bedrock else "text/event-stream; charset=utf-8")
        self.send_header("cache-control", "no-cache")
        self.send_header("transfer-encoding", "chunked")
        self.send_header("request-id", new_request_id())
        self.end_headers()

    def send_sse(self, event: str, data: dict[str, Any]) -> None:
        if self.wire == "bedrock":
            chunk = bedrock_exception(data["error"]["type"], data["error"]["message"]) if event == "error" else bedrock_chunk(data)
        else:
            chunk = f"event: {event}\ndata: {json.dumps(data)}\n\n".encode()
        self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))

    def end_sse(self) -> None:
        self.wfile.write(b"0\r\n\r\n")

    def drop(self) -> None:
        """Close the connection mid-response, as a failed network path would."""
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def wait(self, seconds: float) -> bool:
        """Sleep without blocking other connections; False if the server is stopping."""
        if seconds <= 0:
            return not self.server.stopping.is_set()
        return not self.server.stopping.wait(seconds)

    def wait_for(self, event: threading.Event) -> bool:
        """Wait until ``event`` is set; False if the server stops first."""
        while not event.wait(_STOP_POLL_S):
            if self.server.stopping.is_set():
                return False
        return True


class FakeAnthropicServer:
    """A Messages API server on ``127.0.0.1`` (ephemeral port) that plays a ``Script``.

    Use as a sync or async context manager. If the script was exhausted (or a function
    turn raised), the client gets a 400 ``invalid_request_error`` saying so, and the
    error is raised again when the ``with`` block exits without another exception.
    """

    def __init__(self, script: Script | Iterable[Turn] = (), *, prompt_cache: PromptCacheSimulator | bool = False) -> None:
        self.script = as_script(script)
        self.prompt_cache: PromptCacheSimulator | None = (
            PromptCacheSimulator() if prompt_cache is True else (prompt_cache or None)
        )
        """When set, each reply's input usage is the simulated prompt cache's split
        (:mod:`nb_agent.testing.prompt_cache`) instead of the reply's own numbers."""
        self.request_wires: list[str] = []
        """Which provider's wire format each request came in (``anthropic``, ``vertex``, ``bedrock``)."""
        self.request_headers: list[dict[str, str]] = []
        """The headers of each ``/v1/messages`` request (lower-cased names), in order."""
        self.errors: list[BaseException] = []
        """Failures of the script itself (exhaustion, a function turn that raised)."""
        self._lock = threading.Lock()
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._clients: list[Any] = []

    # --- lifecycle ------------------------------------------------------------------------

    def start(self) -> FakeAnthropicServer:
        """Bind an ephemeral port on 127.0.0.1 and serve from a background thread."""
        if self._httpd is not None:
            raise RuntimeError("FakeAnthropicServer is already running")
        self._httpd = _HTTPServer(self)
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, name="fake-anthropic", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving, cut open connections, join every thread and release the port."""
        httpd, thread = self._httpd, self._thread
        if httpd is None or thread is None:
            return
        httpd.shutdown()
        httpd.close_all()
        httpd.server_close()
        thread.join(_JOIN_TIMEOUT)
        self._httpd = self._thread = None

    def __enter__(self) -> FakeAnthropicServer:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()
        if exc is None and self.errors:
            raise self.errors[0]

    async def __aenter__(self) -> FakeAnthropicServer:
        return self.start()

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        for client in self._clients:
            await client.close()
        self._clients.clear()
        self.__exit__(exc_type, exc, tb)

    # --- accessors ------------------------------------------------------------------------

    @property
    def port(self) -> int:
        """The bound port (only while running)."""
        if self._httpd is None:
            raise RuntimeError("FakeAnthropicServer is not running")
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:<port>``, for ``AsyncAnthropic(base_url=...)``."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def requests(self) -> list[dict[str, Any]]:
        """The JSON body of each ``/v1/messages`` request, in order."""
        return self.script.requests

    def client(self, **kwargs: Any) -> Any:
        """An ``anthropic.AsyncAnthropic`` pointed at this server (no SDK retries).

        Clients made here are closed when an ``async with`` block on the server exits.
        """
        import anthropic

        options: dict[str, Any] = {"base_url": self.base_url, "api_key": "test-key", "max_retries": 0}
        client = anthropic.AsyncAnthropic(**{**options, **kwargs})
        self._clients.append(client)
        return client

    # --- answering ------------------------------------------------------------------------

    def _next_turn(self, handler: _Handler, body: Any) -> Reply | ErrorReply | None:
        try:
            with self._lock:  # keeps request_headers aligned with requests
                self.request_headers.append({k.lower(): v for k, v in handler.headers.items()})
                return self.script.next_turn(body)
        except Exception as exc:  # noqa: BLE001 - reported to the client and re-raised at exit
            self.errors.append(exc)
            message = f"FakeAnthropicServer: {type(exc).__name__}: {exc}"
            handler.send_json(400, _error_body("invalid_request_error", message))
            return None

    def _answer_messages(self, handler: _Handler, body: Any, *, wire: str = "anthropic") -> None:
        handler.wire = wire
        self.request_wires.append(wire)
        cache = self.prompt_cache if isinstance(body, dict) else None
        if cache is not None and count_breakpoints(body) > MAX_BREAKPOINTS:
            found = count_breakpoints(body)
            message = f"A maximum of {MAX_BREAKPOINTS} blocks with cache_control may be provided. Found {found}."
            handler.send_json(400, _error_body("invalid_request_error", message))
            return
        turn = self._next_turn(handler, body)
        if turn is None:
            return
        if cache is not None and isinstance(turn, Reply):
            turn = replace(turn, **cache.account(body).__dict__)
        if isinstance(turn, ErrorReply):
            if handler.wait(turn.delay):
                handler.send_json(turn.status, turn.body(), turn.headers)
            return
        plan = plan_stream(turn, message_id=new_message_id())
        if isinstance(body, dict) and body.get("stream"):
            _stream_reply(handler, turn, plan)
        else:
            _send_reply(handler, turn, plan)


def _stream_reply(handler: _Handler, reply: Reply, plan: StreamPlan) -> None:
    if plan.drops_before_response:  # the SDK sees a connection error, not a stream
        return handler.drop()
    handler.start_sse()
    try:
        for index, event in enumerate(plan.events):
            if index and not handler.wait(plan.gap):
                return handler.drop()
            if index in reply.hold_after_events:
                if not handler.wait_for(reply.release):
                    return handler.drop()
                reply.release.clear()  # for the next hold
            handler.send_sse(event["type"], event)
        if plan.fault is None:
            return handler.end_sse()
        if plan.events and not handler.wait(plan.gap):
            return handler.drop()
        if plan.fault == "drop":
            return handler.drop()
        handler.send_sse("error", reply.error_body())
        handler.end_sse()
    except OSError:  # the client went away (an aborted stream)
        handler.close_connection = True


def _send_reply(handler: _Handler, reply: Reply, plan: StreamPlan) -> None:
    # A non-streaming answer takes as long as the stream would have.
    if not handler.wait(plan.duration):
        return handler.drop()
    if plan.fault is None:
        handler.send_json(200, reply_message(reply, message_id=plan.message_id))
    elif plan.fault == "drop":
        handler.drop()
    else:
        handler.send_json(ERROR_STATUS.get(reply.error_type, 500), reply.error_body())
