"""The script both model doubles play: what the model answers, turn by turn.

A test writes the model's side of a conversation as a list of turns (a ``Reply``, an
``ErrorReply``, or a function of the request body that returns one) and hands it to the
in-process ``ScriptedTransport`` or to the HTTP ``FakeAnthropicServer``. Both render a
``Reply`` with :func:`reply_events` — the exact raw SSE events of the Messages API — so a
test can swap one double for the other without changing what the client sees.
"""

from __future__ import annotations

import copy
import json
import threading
import uuid
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any, Literal, TypeAlias

from nb_agent.messages import ContentBlock

DEFAULT_MODEL = "claude-sonnet-4-6"

ERROR_STATUS: dict[str, int] = {
    "invalid_request_error": 400,
    "authentication_error": 401,
    "billing_error": 402,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "api_error": 500,
    "overloaded_error": 529,
}
"""The HTTP status the API answers with for each error type."""

_DEFAULT_ERROR_MESSAGES: dict[str, str] = {
    "invalid_request_error": "Invalid request",
    "authentication_error": "invalid x-api-key",
    "permission_error": "Your API key does not have permission to use the specified resource.",
    "not_found_error": "Not found",
    "request_too_large": "Request exceeds the maximum allowed number of bytes.",
    "rate_limit_error": "Number of request tokens has exceeded your per-minute rate limit",
    "api_error": "Internal server error",
    "overloaded_error": "Overloaded",
}

_TOOL_USE_TYPES = frozenset({"tool_use", "server_tool_use", "mcp_tool_use"})

Fault = Literal["error", "drop"]


class ScriptExhaustedError(AssertionError):
    """The model was called more times than the script has turns."""


def _random_suffix() -> str:
    return uuid.uuid4().hex[:22]


def new_message_id() -> str:
    """A fresh id shaped like the API's (``msg_01…``)."""
    return f"msg_01{_random_suffix()}"


def new_request_id() -> str:
    """A fresh ``request-id`` header value shaped like the API's (``req_01…``)."""
    return f"req_01{_random_suffix()}"


# --- content helpers ----------------------------------------------------------------------


def text(s: str) -> ContentBlock:
    """A text block."""
    return {"type": "text", "text": s}


def tool_use(name: str, input: dict[str, Any], id: str | None = None) -> ContentBlock:
    """A tool_use block; ``id`` defaults to a fresh unique ``toolu_01…`` id."""
    return {"type": "tool_use", "id": id or f"toolu_01{_random_suffix()}", "name": name, "input": input}


def thinking(s: str, signature: str = "sig") -> ContentBlock:
    """A thinking block with its signature (streamed as a ``signature_delta``)."""
    return {"type": "thinking", "thinking": s, "signature": signature}


# --- turns --------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class Reply:
    """One successful model response, plus how to stream it and how to break it.

    ``error_after_events`` / ``drop_after_events`` fire after that many events have been
    sent (or after the last one, if the stream is shorter); the earlier of the two wins.
    ``drop_after_events=0`` cuts the connection before the response starts.
    """

    content: list[ContentBlock]
    stop_reason: str | None = None
    """None means ``"tool_use"`` if any block is a tool_use, else ``"end_turn"``."""
    model: str = DEFAULT_MODEL
    input_tokens: int = 100
    output_tokens: int | None = None
    """None means estimated from the content (about four characters a token)."""
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0
    chunk_size: int = 16
    """Text, thinking and tool-input JSON are streamed in deltas of this many characters."""
    delay: float = 0.0
    """Seconds between consecutive events."""
    stream_duration: float | None = None
    """If set, the events are spread evenly over this many seconds (overrides ``delay``)."""
    error_after_events: int | None = None
    """Send an SSE ``event: error`` after this many events, then end the stream."""
    error_type: str = "overloaded_error"
    error_message: str | None = None
    drop_after_events: int | None = None
    """Close the connection abruptly (no terminating chunk) after this many events."""
    hold_after_events: tuple[int, ...] = ()
    """Pause the stream after each of these many events until :attr:`release` is set; the
    stream clears it as it goes on, so a test sets it once per hold (a streaming request
    only; see :func:`held_at_end`, :func:`held_partway`): a test sees what streamed so far
    before the rest comes, by waiting for an event rather than for seconds."""
    release: threading.Event = field(default_factory=threading.Event, compare=False, repr=False)
    """Set it to let a held stream go on to its next hold, or its end."""

    def __post_init__(self) -> None:
        if self.chunk_size < 1:
            raise ValueError("chunk_size must be at least 1")
        for block in self.content:
            if not isinstance(block, dict) or "type" not in block:
                raise ValueError(f"content blocks must be dicts with a 'type' key, got {block!r}")
            if block["type"] in _TOOL_USE_TYPES and not {"id", "name", "input"} <= block.keys():
                raise ValueError(f"a {block['type']} block needs id, name and input: {block!r}")

    @property
    def resolved_stop_reason(self) -> str:
        """The stop_reason the API reports for this reply."""
        if self.stop_reason is not None:
            return self.stop_reason
        return "tool_use" if any(b["type"] == "tool_use" for b in self.content) else "end_turn"

    @property
    def resolved_output_tokens(self) -> int:
        """``output_tokens``, or an estimate of about four characters a token."""
        if self.output_tokens is not None:
            return self.output_tokens
        chars = sum(len(_streamed_text(b)) for b in self.content)
        return max(1, chars // 4)

    @property
    def usage(self) -> dict[str, int]:
        """The final usage, shaped like the API's ``usage`` object."""
        return {
            "input_tokens": self.input_tokens,
            "cache_creation_input_tokens": self.cache_creation_input_tokens,
            "cache_read_input_tokens": self.cache_read_input_tokens,
            "output_tokens": self.resolved_output_tokens,
        }

    def error_body(self) -> dict[str, Any]:
        """The body of the mid-stream ``event: error``."""
        message = self.error_message or _DEFAULT_ERROR_MESSAGES.get(self.error_type, self.error_type)
        return {"type": "error", "error": {"type": self.error_type, "message": message}}


@dataclass(frozen=True, kw_only=True)
class ErrorReply:
    """An HTTP error response instead of a message (e.g. 529 overloaded, 429 rate limit)."""

    status: int
    error_type: str = "api_error"
    message: str | None = None
    """None means the API's usual message for ``error_type``."""
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    """Seconds before the response is sent."""

    def body(self) -> dict[str, Any]:
        """The API's JSON error body."""
        message = self.message or _DEFAULT_ERROR_MESSAGES.get(self.error_type, self.error_type)
        return {"type": "error", "error": {"type": self.error_type, "message": message}}


def overloaded_error(**kw: Any) -> ErrorReply:
    """529 ``overloaded_error``."""
    return ErrorReply(status=529, error_type="overloaded_error", **kw)


def rate_limit_error(*, retry_after: float | None = None, **kw: Any) -> ErrorReply:
    """429 ``rate_limit_error``, optionally with a ``retry-after`` header (seconds)."""
    headers = dict(kw.pop("headers", {}))
    if retry_after is not None:
        headers["retry-after"] = f"{retry_after:g}"
    return ErrorReply(status=429, error_type="rate_limit_error", headers=headers, **kw)


def prompt_too_long_error(tokens: int = 210_000, maximum: int = 200_000, **kw: Any) -> ErrorReply:
    """400 ``invalid_request_error`` "prompt is too long: N tokens > M maximum"."""
    message = f"prompt is too long: {tokens} tokens > {maximum} maximum"
    return ErrorReply(status=400, error_type="invalid_request_error", message=message, **kw)


def request_too_large_error(**kw: Any) -> ErrorReply:
    """413 ``request_too_large``."""
    return ErrorReply(status=413, error_type="request_too_large", **kw)


Turn: TypeAlias = Reply | ErrorReply | Callable[[dict[str, Any]], Reply | ErrorReply]
"""One scripted model call; a function turn receives the request body."""


# --- rendering ----------------------------------------------------------------------------


def _streamed_text(block: ContentBlock) -> str:
    kind = block["type"]
    if kind == "text":
        return block["text"]
    if kind == "thinking":
        return block["thinking"]
    if kind in _TOOL_USE_TYPES:
        return json.dumps(block["input"]) if block["input"] else ""
    return ""


def _chunks(s: str, size: int) -> list[str]:
    return [s[i : i + size] for i in range(0, len(s), size)]


def _block_events(index: int, block: ContentBlock, chunk_size: int) -> list[dict[str, Any]]:
    kind = block["type"]
    deltas: list[dict[str, Any]]
    if kind == "text":
        # As the API streams a cited text block: the citations arrive as citations_delta events.
        start = {"type": "text", "text": ""}
        deltas = [{"type": "citations_delta", "citation": c} for c in block.get("citations") or []]
        deltas += [{"type": "text_delta", "text": c} for c in _chunks(block["text"], chunk_size)]
    elif kind == "thinking":
        start = {**block, "thinking": "", "signature": ""}
        deltas = [{"type": "thinking_delta", "thinking": c} for c in _chunks(block["thinking"], chunk_size)]
        deltas.append({"type": "signature_delta", "signature": block.get("signature", "")})
    elif kind in _TOOL_USE_TYPES:
        start = {**block, "input": {}}
        # The API opens every tool input with an empty partial_json.
        deltas = [{"type": "input_json_delta", "partial_json": ""}]
        deltas += [{"type": "input_json_delta", "partial_json": c} for c in _chunks(_streamed_text(block), chunk_size)]
    else:  # redacted_thinking, server tool results, ...: sent whole in the start event
        start, deltas = copy.deepcopy(block), []
    return [
        {"type": "content_block_start", "index": index, "content_block": start},
        *({"type": "content_block_delta", "index": index, "delta": d} for d in deltas),
        {"type": "content_block_stop", "index": index},
    ]


def reply_message(reply: Reply, *, message_id: str) -> dict[str, Any]:
    """The non-streaming JSON ``Message`` body for ``reply``."""
    return {
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "model": reply.model,
        "content": copy.deepcopy(reply.content),
        "stop_reason": reply.resolved_stop_reason,
        "stop_sequence": None,
        "usage": reply.usage,
    }


def reply_events(reply: Reply, *, message_id: str) -> list[dict[str, Any]]:
    """The raw SSE event payloads the API streams for ``reply``, in order (no pings)."""
    start_message = {
        **reply_message(reply, message_id=message_id),
        "content": [],
        "stop_reason": None,
        "usage": {**reply.usage, "output_tokens": 1},
    }
    events: list[dict[str, Any]] = [{"type": "message_start", "message": start_message}]
    for index, block in enumerate(reply.content):
        events += _block_events(index, block, reply.chunk_size)
    events.append(
        {
            "type": "message_delta",
            "delta": {"stop_reason": reply.resolved_stop_reason, "stop_sequence": None},
            "usage": {"output_tokens": reply.resolved_output_tokens},
        }
    )
    events.append({"type": "message_stop"})
    return events


def held_at_end(reply: Reply) -> Reply:
    """``reply`` held before the end of its last block: every delta is sent, then the
    stream waits for ``reply.release`` (the returned reply's, which is ``reply``'s)."""
    events = reply_events(reply, message_id="held")
    last_block_stop = max(i for i, event in enumerate(events) if event["type"] == "content_block_stop")
    return replace(reply, hold_after_events=(last_block_stop,))


def held_partway(reply: Reply, *fractions: float) -> Reply:
    """``reply`` held after each of these fractions of its events (``0.5``: halfway): a
    test sees the kernel act on a stream that has begun and not ended, then sets
    ``reply.release`` once for each hold."""
    count = len(reply_events(reply, message_id="held"))
    holds = sorted({int(count * fraction) for fraction in fractions})
    if not fractions or holds[0] < 1 or holds[-1] >= count:
        raise ValueError(f"holds must fall strictly inside the stream's {count} events: {fractions}")
    return replace(reply, hold_after_events=tuple(holds))


@dataclass(frozen=True, kw_only=True)
class StreamPlan:
    """How one ``Reply`` goes over the wire; both doubles follow it step by step."""

    message_id: str
    events: list[dict[str, Any]]
    """The events sent before the stream completes or breaks."""
    gap: float
    """Seconds between two sends (also before the fault, if there is one)."""
    fault: Fault | None
    """How the stream breaks after ``events``: an ``event: error``, a dropped connection."""

    @property
    def drops_before_response(self) -> bool:
        """The connection is cut before any byte of the response."""
        return self.fault == "drop" and not self.events

    @property
    def duration(self) -> float:
        """How long sending ``events`` takes (what a non-streaming answer waits)."""
        return self.gap * max(0, len(self.events) - 1)


def plan_stream(reply: Reply, *, message_id: str) -> StreamPlan:
    """Apply ``reply``'s timing and fault fields to its events.

    A fault fires after ``N`` events (or after the last, if the stream is shorter); if
    both are set, the earlier wins.
    """
    events = reply_events(reply, message_id=message_id)
    count = len(events)
    gap = reply.stream_duration / max(1, count - 1) if reply.stream_duration is not None else reply.delay
    faults: list[tuple[int, Fault]] = []
    if reply.error_after_events is not None:
        faults.append((min(reply.error_after_events, count), "error"))
    if reply.drop_after_events is not None:
        faults.append((min(reply.drop_after_events, count), "drop"))
    if not faults:
        return StreamPlan(message_id=message_id, events=events, gap=gap, fault=None)
    stop_at, fault = min(faults, key=lambda f: f[0])
    return StreamPlan(message_id=message_id, events=events[:stop_at], gap=gap, fault=fault)


# --- the script ---------------------------------------------------------------------------


def _describe(request: dict[str, Any]) -> str:
    messages = request.get("messages") or []
    if not messages:
        return "(no messages)"
    last = messages[-1]
    content = last.get("content")
    if isinstance(content, list):
        content = [b.get("text") or b.get("type") for b in content if isinstance(b, dict)]
    summary = repr(content)
    return f"{last.get('role')}: {summary[:200]}{'…' if len(summary) > 200 else ''}"


class Script:
    """The model's turns, consumed in order; records every request body it is asked.

    Thread-safe: the fake server answers concurrent connections from several threads.
    """

    def __init__(self, turns: Iterable[Turn] = ()) -> None:
        self._turns: deque[Turn] = deque(turns)
        self._total = len(self._turns)
        self._lock = threading.Lock()
        self.requests: list[dict[str, Any]] = []
        """Every request body, deep-copied, in call order (including unscripted ones)."""

    def add(self, *turns: Turn) -> None:
        """Append more turns (e.g. from inside a running test)."""
        with self._lock:
            self._turns.extend(turns)
            self._total += len(turns)

    @property
    def remaining(self) -> int:
        """How many turns are still unused."""
        return len(self._turns)

    def next_turn(self, request: dict[str, Any]) -> Reply | ErrorReply:
        """Record ``request`` and return the next turn (calling it if it is a function).

        Raises ``ScriptExhaustedError`` when every turn has been used.
        """
        body = copy.deepcopy(request)
        with self._lock:
            self.requests.append(body)
            call = len(self.requests)
            turn = self._turns.popleft() if self._turns else None
        if turn is None:
            raise ScriptExhaustedError(
                f"the model was called {call} times but the script has only {self._total} turns; "
                f"last message of the unscripted request: {_describe(body)}"
            )
        if isinstance(turn, (Reply, ErrorReply)):
            return turn
        result = turn(copy.deepcopy(body))
        if not isinstance(result, (Reply, ErrorReply)):
            raise TypeError(f"a function turn must return a Reply or ErrorReply, got {result!r}")
        return result

    def assert_exhausted(self) -> None:
        """Fail if some scripted turns were never used."""
        if self._turns:
            raise AssertionError(
                f"{len(self._turns)} of {self._total} scripted turns were never used "
                f"(the model was called {len(self.requests)} times)"
            )


def as_script(script: Script | Iterable[Turn]) -> Script:
    """Accept either a ``Script`` or a plain list of turns."""
    return script if isinstance(script, Script) else Script(script)


# --- server-side web search blocks ------------------------------------------------------------


def server_tool_use(query: str, id: str | None = None) -> ContentBlock:
    """The ``server_tool_use`` block of a server-side web search."""
    return {"type": "server_tool_use", "id": id or f"srvtoolu_01{_random_suffix()}", "name": "web_search", "input": {"query": query}}


def web_search_tool_result(tool_use_id: str, results: list[tuple[str, str]]) -> ContentBlock:
    """A ``web_search_tool_result`` block: ``results`` are ``(title, url)`` pairs."""
    content = [
        {"type": "web_search_result", "title": title, "url": url, "encrypted_content": f"enc-{i}", "page_age": None}
        for i, (title, url) in enumerate(results)
    ]
    return {"type": "web_search_tool_result", "tool_use_id": tool_use_id, "content": content}


def cited_text(s: str, citations: list[tuple[str, str, str]]) -> ContentBlock:
    """A text block citing search results: ``citations`` are ``(url, title, cited_text)``."""
    return {
        "type": "text",
        "text": s,
        "citations": [
            {"type": "web_search_result_location", "url": url, "title": title, "cited_text": quoted, "encrypted_index": f"idx-{i}"}
            for i, (url, title, quoted) in enumerate(citations)
        ],
    }
