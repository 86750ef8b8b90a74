"""The real anthropic SDK against FakeAnthropicServer: error statuses and broken streams."""

from __future__ import annotations

import anthropic
import httpx2
import pytest

from nb_agent.testing import (
    ErrorReply,
    FakeAnthropicServer,
    Reply,
    ScriptExhaustedError,
    overloaded_error,
    prompt_too_long_error,
    rate_limit_error,
    request_too_large_error,
    text,
)

REQUEST = {"model": "claude-haiku-4-5", "max_tokens": 1024, "messages": [{"role": "user", "content": "hi"}]}
LONG_REPLY = Reply(content=[text("a fairly long answer " * 5)], chunk_size=4)


async def consume(client: anthropic.AsyncAnthropic) -> list[str]:
    stream = await client.messages.create(**REQUEST, stream=True)
    return [event.type async for event in stream]


@pytest.mark.parametrize(
    ("turn", "error_class"),
    [
        (overloaded_error(), anthropic.OverloadedError),
        (rate_limit_error(retry_after=3), anthropic.RateLimitError),
        (prompt_too_long_error(), anthropic.BadRequestError),
        (request_too_large_error(), anthropic.ContentTooLargeError),
        (ErrorReply(status=500), anthropic.InternalServerError),
        (ErrorReply(status=401, error_type="authentication_error"), anthropic.AuthenticationError),
    ],
)
@pytest.mark.parametrize("stream", [True, False])
async def test_error_statuses_map_to_sdk_exceptions(
    turn: ErrorReply, error_class: type[anthropic.APIStatusError], stream: bool
) -> None:
    async with FakeAnthropicServer([turn]) as server:
        with pytest.raises(error_class) as info:
            await server.client().messages.create(**REQUEST, stream=stream)
    error = info.value
    assert error.status_code == turn.status
    assert error.body == turn.body()
    assert error.type == turn.error_type
    assert error.api_message == turn.body()["error"]["message"]
    assert error.request_id is not None and error.request_id.startswith("req_")


async def test_overloaded_is_a_status_and_server_error() -> None:
    async with FakeAnthropicServer([overloaded_error()]) as server:
        with pytest.raises(anthropic.InternalServerError) as info:
            await consume(server.client())
    assert isinstance(info.value, anthropic.APIStatusError)
    assert info.value.status_code == 529


async def test_rate_limit_carries_retry_after() -> None:
    async with FakeAnthropicServer([rate_limit_error(retry_after=2.5)]) as server:
        with pytest.raises(anthropic.RateLimitError) as info:
            await consume(server.client())
    assert info.value.response.headers["retry-after"] == "2.5"


async def test_prompt_too_long_message_is_readable() -> None:
    async with FakeAnthropicServer([prompt_too_long_error(tokens=250_000)]) as server:
        with pytest.raises(anthropic.BadRequestError, match="prompt is too long: 250000 tokens > 200000 maximum"):
            await consume(server.client())


async def test_mid_stream_error_event_is_an_api_status_error_with_status_200() -> None:
    reply = Reply(content=[text("partial answer")], error_after_events=3, error_type="overloaded_error")
    seen: list[str] = []
    async with FakeAnthropicServer([reply]) as server:
        stream = await server.client().messages.create(**REQUEST, stream=True)
        with pytest.raises(anthropic.APIStatusError) as info:
            async for event in stream:
                seen.append(event.type)
    assert seen == ["message_start", "content_block_start", "content_block_delta"]
    assert type(info.value) is anthropic.APIStatusError
    assert info.value.status_code == 200
    assert info.value.type == "overloaded_error"
    assert info.value.body == {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}


async def test_mid_stream_error_through_the_stream_helper() -> None:
    reply = Reply(content=[text("partial")], error_after_events=2, error_type="api_error", error_message="boom")
    async with FakeAnthropicServer([reply]) as server:
        with pytest.raises(anthropic.APIStatusError, match="boom"):
            async with server.client().messages.stream(**REQUEST) as stream:
                await stream.get_final_message()


async def test_dropped_stream_raises_the_httpx_protocol_error() -> None:
    seen: list[str] = []
    async with FakeAnthropicServer([Reply(content=[text("partial")], drop_after_events=2)]) as server:
        stream = await server.client().messages.create(**REQUEST, stream=True)
        with pytest.raises(httpx2.RemoteProtocolError, match="incomplete chunked read"):
            async for event in stream:
                seen.append(event.type)
    assert seen == ["message_start", "content_block_start"]


async def test_drop_before_any_event_is_a_connection_error() -> None:
    async with FakeAnthropicServer([Reply(content=[text("x")], drop_after_events=0)]) as server:
        with pytest.raises(anthropic.APIConnectionError) as info:
            await consume(server.client())
    assert isinstance(info.value.__cause__, httpx2.RemoteProtocolError)


async def test_non_streaming_faults() -> None:
    turns = [
        Reply(content=[text("x")], drop_after_events=3),
        Reply(content=[text("x")], error_after_events=3, error_type="overloaded_error"),
    ]
    async with FakeAnthropicServer(turns) as server:
        client = server.client()
        with pytest.raises(anthropic.APIConnectionError):
            await client.messages.create(**REQUEST)
        with pytest.raises(anthropic.OverloadedError):
            await client.messages.create(**REQUEST)


async def test_client_abort_mid_stream_leaves_the_server_healthy() -> None:
    slow = Reply(content=[text("x" * 100)], chunk_size=1, delay=0.01)
    async with FakeAnthropicServer([slow, Reply(content=[text("next")])]) as server:
        client = server.client()
        stream = await client.messages.create(**REQUEST, stream=True)
        async for event in stream:
            if event.type == "content_block_delta":
                break
        await stream.close()
        message = await client.messages.create(**REQUEST)
    assert message.content[0].text == "next"


async def test_exhausted_script_fails_the_request_and_the_block() -> None:
    server = FakeAnthropicServer([Reply(content=[text("only")])])
    with pytest.raises(ScriptExhaustedError, match="called 2 times"):
        async with server:
            client = server.client()
            await client.messages.create(**REQUEST)
            with pytest.raises(anthropic.BadRequestError, match="ScriptExhaustedError"):
                await client.messages.create(**REQUEST)
    assert len(server.requests) == 2


async def test_a_raising_function_turn_is_reported() -> None:
    def broken(request: dict) -> Reply:
        raise KeyError("no such thing")

    server = FakeAnthropicServer([broken])
    with pytest.raises(KeyError, match="no such thing"):
        async with server:
            with pytest.raises(anthropic.BadRequestError, match="KeyError"):
                await server.client().messages.create(**REQUEST)


async def test_an_error_inside_the_block_is_not_masked() -> None:
    server = FakeAnthropicServer([])
    with pytest.raises(RuntimeError, match="the test's own failure"):
        async with server:
            with pytest.raises(anthropic.BadRequestError):
                await server.client().messages.create(**REQUEST)
            raise RuntimeError("the test's own failure")
    assert isinstance(server.errors[0], ScriptExhaustedError)


async def test_error_reply_delay_is_honoured() -> None:
    import time

    async with FakeAnthropicServer([ErrorReply(status=529, error_type="overloaded_error", delay=0.1)]) as server:
        started = time.monotonic()
        with pytest.raises(anthropic.OverloadedError):
            await consume(server.client())
    assert time.monotonic() - started >= 0.09
