"""An in-process ``ModelTransport`` that plays a ``Script``: no sockets, no HTTP.

It yields the SDK's own ``RawMessageStreamEvent`` objects built from the same raw events
the ``FakeAnthropicServer`` sends, and raises the exception classes the real SDK raises
for the same faults (checked against the fake server by the test kit's parity tests):

- ``ErrorReply(status=...)``: the SDK's class for that status (``RateLimitError``,
  ``OverloadedError``, ``BadRequestError``, ...), with ``status_code``, ``body`` and
  ``response.headers`` (``retry-after``, ``request-id``) set.
- ``Reply(error_after_events=N)``: ``anthropic.APIStatusError`` with status 200 while
  streaming; from ``create()``, the status error for ``error_type``.
- ``Reply(drop_after_events=N)``: ``httpx2.RemoteProtocolError`` mid-stream;
  ``anthropic.APIConnectionError`` if nothing was sent yet (N=0) or from ``create()``.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterable
from typing import Any

import anthropic
from anthropic.types import Message, RawMessageStreamEvent
from pydantic import TypeAdapter

from nb_agent.model.sdk_http import sdk_http as _http
from nb_agent.testing.script import (
    ERROR_STATUS,
    ErrorReply,
    Reply,
    Script,
    Turn,
    as_script,
    new_message_id,
    new_request_id,
    plan_stream,
    reply_message,
)

_EVENT_ADAPTER: TypeAdapter[RawMessageStreamEvent] = TypeAdapter(RawMessageStreamEvent)

_API_URL = "https://api.anthropic.com/v1/messages"
_SDK_OPTIONS = frozenset({"extra_headers", "extra_query", "extra_body", "timeout"})
_HOLD_POLL_S = 0.01
"""How often a held stream looks whether it was released."""

DISCONNECTED = "Server disconnected without sending a response."
INCOMPLETE_BODY = "peer closed connection without sending complete message body (incomplete chunked read)"


def _make_status_error(err_msg: str, *, body: object, response: _http.Response) -> anthropic.APIStatusError:
    """The SDK's own status -> exception class mapping (private, so guarded)."""
    try:
        from anthropic._error_classes import make_status_error
    except ImportError:  # pragma: no cover - older SDKs keep it on the client, stateless
        return anthropic.AsyncAnthropic._make_status_error(None, err_msg, body=body, response=response)  # type: ignore[arg-type]
    return make_status_error(err_msg, body=body, response=response)


def _wire_body(request: dict[str, Any], *, stream: bool) -> dict[str, Any]:
    """The JSON body the SDK would send for ``messages.create(**request)``."""
    body = {k: v for k, v in request.items() if k not in _SDK_OPTIONS}
    body.update(request.get("extra_body") or {})
    if stream:
        body["stream"] = True
    return body


def _http_error(status: int, body: dict[str, Any], headers: dict[str, str], request: _http.Request) -> anthropic.APIStatusError:
    response = _http.Response(
        status, headers={"request-id": new_request_id(), **headers}, json=body, request=request
    )
    return _make_status_error(f"Error code: {status} - {body}", body=body, response=response)


def _stream_error(body: dict[str, Any], request: _http.Request) -> anthropic.APIStatusError:
    # A mid-stream ``event: error`` arrives on a 200 response; the SDK formats it so.
    headers = {"request-id": new_request_id(), "content-type": "text/event-stream; charset=utf-8"}
    response = _http.Response(200, headers=headers, request=request)
    return _make_status_error(f"{body}", body=body, response=response)


def _connection_error(request: _http.Request) -> anthropic.APIConnectionError:
    error = anthropic.APIConnectionError(request=request)
    error.__cause__ = _http.RemoteProtocolError(DISCONNECTED, request=request)
    return error


class ScriptedTransport:
    """A ``ModelTransport`` whose answers come from a ``Script`` (see the module doc)."""

    def __init__(self, script: Script | Iterable[Turn] = ()) -> None:
        self.script = as_script(script)

    @property
    def requests(self) -> list[dict[str, Any]]:
        """The body of each request, as the SDK would have sent it, in order."""
        return self.script.requests

    async def stream(self, request: dict[str, Any]) -> AsyncIterator[RawMessageStreamEvent]:
        """Yield the scripted reply's raw events, or raise as the SDK would."""
        body = _wire_body(request, stream=True)
        http_request = _http.Request("POST", _API_URL, json=body)
        turn = self.script.next_turn(body)
        if isinstance(turn, ErrorReply):
            await asyncio.sleep(turn.delay)
            raise _http_error(turn.status, turn.body(), turn.headers, http_request)
        plan = plan_stream(turn, message_id=new_message_id())
        if plan.drops_before_response:
            raise _connection_error(http_request)
        for index, event in enumerate(plan.events):
            if index and plan.gap:
                await asyncio.sleep(plan.gap)
            if index in turn.hold_after_events:
                while not turn.release.is_set():
                    await asyncio.sleep(_HOLD_POLL_S)  # cancellable, unlike a thread blocked on the event
                turn.release.clear()  # for the next hold
            yield _EVENT_ADAPTER.validate_python(event)
        if plan.fault is None:
            return
        if plan.events and plan.gap:
            await asyncio.sleep(plan.gap)
        if plan.fault == "drop":
            raise _http.RemoteProtocolError(INCOMPLETE_BODY, request=http_request)
        raise _stream_error(turn.error_body(), http_request)

    async def create(self, request: dict[str, Any]) -> Message:
        """Return the scripted reply as a ``Message``, or raise as the SDK would."""
        body = _wire_body(request, stream=False)
        http_request = _http.Request("POST", _API_URL, json=body)
        turn = self.script.next_turn(body)
        if isinstance(turn, ErrorReply):
            await asyncio.sleep(turn.delay)
            raise _http_error(turn.status, turn.body(), turn.headers, http_request)
        return await _create_reply(turn, http_request)


async def _create_reply(reply: Reply, http_request: _http.Request) -> Message:
    plan = plan_stream(reply, message_id=new_message_id())
    await asyncio.sleep(plan.duration)  # as long as the stream would have taken
    if plan.fault is None:
        return Message.model_validate(reply_message(reply, message_id=plan.message_id))
    if plan.fault == "drop":
        raise _connection_error(http_request)
    raise _http_error(ERROR_STATUS.get(reply.error_type, 500), reply.error_body(), {}, http_request)
