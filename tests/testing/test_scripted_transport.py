"""ScriptedTransport: in-process, and indistinguishable from the SDK talking to the fake server."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import anthropic
import httpx2
import pytest
from anthropic.types import Message, RawMessageStreamEvent

from nb_agent.model.transport import AnthropicTransport, ModelTransport
from nb_agent.testing import (
    ErrorReply,
    FakeAnthropicServer,
    Reply,
    ScriptedTransport,
    ScriptExhaustedError,
    Turn,
    overloaded_error,
    prompt_too_long_error,
    rate_limit_error,
    request_too_large_error,
    text,
    thinking,
    tool_use,
)

REQUEST = {"model": "claude-haiku-4-5", "max_tokens": 1024, "messages": [{"role": "user", "content": "hi"}]}

PARITY_TURNS: dict[str, Turn] = {
    "full": Reply(
        content=[
            thinking("Reasoning about the request. " * 3, signature="sig-xyz"),
            {"type": "redacted_thinking", "data": "opaque"},
            text("Here is what I found in the notebook state."),
            tool_use("Read", {"file_path": "/tmp/data.csv", "limit": 20}, id="toolu_01P"),
            tool_use("TodoRead", {}, id="toolu_01Q"),
        ],
        chunk_size=7,
        input_tokens=321,
        cache_read_input_tokens=42,
    ),
    "max_tokens": Reply(content=[text("cut off mid")], stop_reason="max_tokens", output_tokens=3),
    "mid_stream_error": Reply(content=[text("partial " * 5)], error_after_events=4, error_type="overloaded_error"),
    "mid_stream_api_error": Reply(content=[text("p")], error_after_events=1, error_type="api_error"),
    "drop": Reply(content=[text("partial " * 5)], drop_after_events=5),
    "drop_first": Reply(content=[text("x")], drop_after_events=0),
    "overloaded": overloaded_error(),
    "rate_limited": rate_limit_error(retry_after=1),
    "too_long": prompt_too_long_error(),
    "too_large": request_too_large_error(),
    "server_error": ErrorReply(status=500),
}


def normalized(event: RawMessageStreamEvent) -> dict[str, Any]:
    data = event.model_dump(mode="json")
    if data["type"] == "message_start":
        data["message"]["id"] = "msg"  # fresh per response
    return data


async def collect(transport: ModelTransport) -> tuple[list[type], list[dict[str, Any]], BaseException | None]:
    types: list[type] = []
    events: list[dict[str, Any]] = []
    try:
        async for event in transport.stream(dict(REQUEST)):
            types.append(type(event))
            events.append(normalized(event))
    except Exception as exc:  # noqa: BLE001 - compared below
        return types, events, exc
    return types, events, None


def error_facts(error: BaseException | None) -> dict[str, Any] | None:
    if error is None:
        return None
    facts: dict[str, Any] = {"class": type(error)}
    if isinstance(error, anthropic.APIConnectionError):
        facts["cause"] = type(error.__cause__)
    if isinstance(error, anthropic.APIStatusError):
        facts.update(status=error.status_code, body=error.body, type=error.type, message=error.message)
        facts["retry-after"] = error.response.headers.get("retry-after")
        facts["has_request_id"] = error.request_id is not None
    else:
        facts["message"] = str(error)
    return facts


@pytest.mark.parametrize("name", list(PARITY_TURNS))
async def test_stream_parity_with_the_sdk_over_http(name: str) -> None:
    turn = PARITY_TURNS[name]
    async with FakeAnthropicServer([turn]) as server:
        real = await collect(AnthropicTransport(client=server.client()))
    fake = await collect(ScriptedTransport([turn]))
    assert fake[0] == real[0]  # same event classes
    assert fake[1] == real[1]  # same payloads
    assert error_facts(fake[2]) == error_facts(real[2])


@pytest.mark.parametrize("name", list(PARITY_TURNS))
async def test_create_parity_with_the_sdk_over_http(name: str) -> None:
    turn = PARITY_TURNS[name]

    async def outcome(transport: ModelTransport) -> Any:
        try:
            message = await transport.create(dict(REQUEST))
        except Exception as exc:  # noqa: BLE001 - compared below
            return error_facts(exc)
        assert isinstance(message, Message)
        return {**message.model_dump(mode="json"), "id": "msg"}

    async with FakeAnthropicServer([turn]) as server:
        real = await outcome(AnthropicTransport(client=server.client()))
    assert await outcome(ScriptedTransport([turn])) == real


async def test_requests_are_recorded_as_the_wire_body() -> None:
    turns = [Reply(content=[text("a")]), Reply(content=[text("b")])]
    request = {**REQUEST, "extra_headers": {"x-trace": "1"}, "extra_body": {"metadata": {"user_id": "u"}}}
    async with FakeAnthropicServer(turns) as server:
        transport = AnthropicTransport(client=server.client())
        [_ async for _ in transport.stream(request)]
        await transport.create(request)
    scripted = ScriptedTransport(turns)
    [_ async for _ in scripted.stream(request)]
    await scripted.create(request)
    assert scripted.requests == server.requests
    assert scripted.requests[0] == {**REQUEST, "metadata": {"user_id": "u"}, "stream": True}
    scripted.script.assert_exhausted()


async def test_events_are_real_sdk_objects() -> None:
    transport = ScriptedTransport([Reply(content=[text("hi"), tool_use("Bash", {"command": "ls"})])])
    events = [event async for event in transport.stream(REQUEST)]
    assert isinstance(events[0], anthropic.types.RawMessageStartEvent)
    assert isinstance(events[2].delta, anthropic.types.TextDelta)
    json_deltas = [e.delta for e in events if isinstance(getattr(e, "delta", None), anthropic.types.InputJSONDelta)]
    assert "".join(d.partial_json for d in json_deltas) == '{"command": "ls"}'
    assert isinstance(events[-1], anthropic.types.RawMessageStopEvent)


async def test_delay_and_stream_duration_use_asyncio_sleep() -> None:
    transport = ScriptedTransport(
        [Reply(content=[text("abc")], chunk_size=1, delay=0.02), Reply(content=[text("x" * 40)], stream_duration=0.2)]
    )
    started = time.monotonic()
    ticker_ticks = 0

    async def ticker() -> None:
        nonlocal ticker_ticks
        while True:
            await asyncio.sleep(0.01)
            ticker_ticks += 1

    task = asyncio.create_task(ticker())
    [_ async for _ in transport.stream(REQUEST)]  # 8 events, 7 gaps of 0.02
    first = time.monotonic() - started
    ticks_after_first = ticker_ticks
    [_ async for _ in transport.stream(REQUEST)]
    second = time.monotonic() - started - first
    task.cancel()
    # Lower bounds only: the sleeps guarantee them, a slow machine only adds.
    assert first >= 7 * 0.02 * 0.9
    assert second >= 0.2 * 0.9
    # The event loop stayed free during each stream (a blocking sleep would starve the ticker).
    assert ticks_after_first >= 1 and ticker_ticks > ticks_after_first


async def test_closing_the_stream_mid_delay_stops_it() -> None:
    transport = ScriptedTransport([Reply(content=[text("x" * 50)], chunk_size=1, delay=60.0)])
    stream = transport.stream(REQUEST)
    assert (await anext(stream)).type == "message_start"
    started = time.monotonic()
    with pytest.raises(asyncio.TimeoutError):
        await asyncio.wait_for(anext(stream), 0.05)
    await stream.aclose()
    # Generous: only separates "waited for the 60 s delay" from "did not" on a shared machine.
    assert time.monotonic() - started < 20


async def test_exhaustion_raises_in_process() -> None:
    transport = ScriptedTransport([Reply(content=[text("only")])])
    await transport.create(REQUEST)
    with pytest.raises(ScriptExhaustedError, match="called 2 times"):
        [_ async for _ in transport.stream(REQUEST)]


async def test_drop_mid_stream_raises_httpx_remote_protocol_error() -> None:
    transport = ScriptedTransport([Reply(content=[text("partial")], drop_after_events=1)])
    with pytest.raises(httpx2.RemoteProtocolError):
        [_ async for _ in transport.stream(REQUEST)]
