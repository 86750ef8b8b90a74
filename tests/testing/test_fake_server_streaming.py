"""The real anthropic SDK against FakeAnthropicServer: successful replies."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time

import anthropic
import pytest

from nb_agent.testing import FakeAnthropicServer, Reply, Script, held_at_end, text, thinking, tool_use

REQUEST = {"model": "claude-haiku-4-5", "max_tokens": 1024, "messages": [{"role": "user", "content": "hi"}]}

FULL_REPLY = Reply(
    content=[
        thinking("The user greets me; I should list files." * 3, signature="sig-abc"),
        text("Hello! Let me look around the directory for you."),
        tool_use("Bash", {"command": "ls -la", "description": "List files"}, id="toolu_01A"),
    ],
    input_tokens=1234,
    output_tokens=56,
    cache_creation_input_tokens=7,
    cache_read_input_tokens=890,
    chunk_size=5,
)


def assert_full_message(message: anthropic.types.Message) -> None:
    thinking_block, text_block, tool_block = message.content
    assert thinking_block.type == "thinking"
    assert thinking_block.thinking == "The user greets me; I should list files." * 3
    assert thinking_block.signature == "sig-abc"
    assert text_block.type == "text" and text_block.text == "Hello! Let me look around the directory for you."
    assert tool_block.type == "tool_use"
    assert (tool_block.id, tool_block.name) == ("toolu_01A", "Bash")
    assert tool_block.input == {"command": "ls -la", "description": "List files"}
    assert message.stop_reason == "tool_use"
    assert message.model == "claude-sonnet-4-6"
    assert message.id.startswith("msg_01")
    usage = message.usage
    assert (usage.input_tokens, usage.output_tokens) == (1234, 56)
    assert (usage.cache_creation_input_tokens, usage.cache_read_input_tokens) == (7, 890)


async def test_stream_helper_accumulates_the_whole_message() -> None:
    async with FakeAnthropicServer([FULL_REPLY]) as server:
        async with server.client().messages.stream(**REQUEST) as stream:
            texts = [delta async for delta in stream.text_stream]
            message = await stream.get_final_message()
    assert len(texts) > 1  # really streamed in chunks
    assert_full_message(message)


async def test_raw_stream_yields_the_api_event_sequence() -> None:
    reply = Reply(content=[text("abcdefgh")], chunk_size=4)
    async with FakeAnthropicServer([reply]) as server:
        stream = await server.client().messages.create(**REQUEST, stream=True)
        events = [event async for event in stream]
    assert [e.type for e in events] == [
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]
    assert [e.delta.text for e in events if e.type == "content_block_delta"] == ["abcd", "efgh"]
    assert events[-2].delta.stop_reason == "end_turn"


async def test_non_streaming_create_returns_the_same_message() -> None:
    async with FakeAnthropicServer([FULL_REPLY]) as server:
        message = await server.client().messages.create(**REQUEST)
    assert isinstance(message, anthropic.types.Message)
    assert_full_message(message)


async def test_requests_and_headers_are_recorded() -> None:
    async with FakeAnthropicServer([Reply(content=[text("a")]), Reply(content=[text("b")])]) as server:
        client = server.client()
        await client.messages.create(**REQUEST)
        stream = await client.messages.create(**REQUEST, system="be brief", stream=True)
        async for _ in stream:
            pass
    assert server.requests[0] == REQUEST
    assert server.requests[1] == {**REQUEST, "system": "be brief", "stream": True}
    assert server.script.requests is server.requests
    for headers in server.request_headers:  # the key travels as x-api-key or a bearer token
        assert "test-key" in (headers.get("x-api-key", ""), headers.get("authorization", "").removeprefix("Bearer "))
    assert all("anthropic-version" in h for h in server.request_headers)


async def test_a_script_object_is_shared_and_can_be_checked() -> None:
    script = Script([Reply(content=[text("a")])])
    async with FakeAnthropicServer(script) as server:
        await server.client().messages.create(**REQUEST)
    script.assert_exhausted()


async def test_function_turn_sees_the_request_body() -> None:
    def answer(request: dict) -> Reply:
        return Reply(content=[text(f"you said {request['messages'][-1]['content']}")])

    async with FakeAnthropicServer([answer]) as server:
        message = await server.client().messages.create(**REQUEST)
    assert message.content[0].text == "you said hi"


async def test_delays_are_honoured_per_event() -> None:
    reply = Reply(content=[text("abc")], chunk_size=1, delay=0.03)  # 9 events -> 8 gaps
    async with FakeAnthropicServer([reply]) as server:
        started = time.monotonic()
        stream = await server.client().messages.create(**REQUEST, stream=True)
        arrivals = [time.monotonic() async for _ in stream]
    # a lower bound only, from before the request (a late read of the first event must not fail it)
    assert all(arrival - started >= k * 0.03 * 0.9 for k, arrival in enumerate(arrivals))


async def test_stream_duration_spreads_events_evenly() -> None:
    reply = Reply(content=[text("x" * 50)], chunk_size=5, stream_duration=0.3)
    async with FakeAnthropicServer([reply]) as server:
        started = time.monotonic()
        stream = await server.client().messages.create(**REQUEST, stream=True)
        arrivals = [time.monotonic() async for _ in stream]
    # Only lower bounds (what the server's sleeps guarantee; a slow machine only adds), from
    # before the request, not from the first arrival, which a loaded client may read late:
    # the whole stream takes its duration, and the k-th event comes k gaps after the start.
    assert arrivals[-1] - started >= 0.3 * 0.9
    gap = 0.3 / (len(arrivals) - 1)
    assert all(arrival - started >= k * gap * 0.9 for k, arrival in enumerate(arrivals))


async def test_slow_streams_do_not_block_each_other() -> None:
    replies = [held_at_end(Reply(content=[text(str(i))])) for i in range(3)]
    async with FakeAnthropicServer(replies) as server:
        client = server.client()
        begun = 0
        all_begun = asyncio.Event()

        async def one() -> str:
            nonlocal begun
            stream = await client.messages.create(**REQUEST, stream=True)
            said = ""
            async for event in stream:
                if event.type == "message_start":
                    begun += 1
                    if begun == 3:
                        all_begun.set()
                elif event.type == "content_block_delta" and event.delta.type == "text_delta":
                    said += event.delta.text
            return said

        streams = asyncio.gather(one(), one(), one())
        # Concurrent: every stream begins while all three are held (served one after
        # another, the second would never begin before the first one's release).
        await asyncio.wait_for(all_begun.wait(), timeout=60)
        for reply in replies:
            reply.release.set()
        results = await streams
    assert sorted(results) == ["0", "1", "2"]
    assert len(server.requests) == len(server.request_headers) == 3


async def test_keep_alive_connection_serves_many_requests() -> None:
    async with FakeAnthropicServer([Reply(content=[text(str(i))]) for i in range(5)]) as server:
        client = server.client()
        for i in range(5):
            message = await client.messages.create(**REQUEST)
            assert message.content[0].text == str(i)


async def test_count_tokens_gives_a_rough_estimate() -> None:
    async with FakeAnthropicServer([]) as server:
        result = await server.client().messages.count_tokens(
            model=REQUEST["model"], messages=[{"role": "user", "content": "x" * 400}]
        )
    assert 100 <= result.input_tokens <= 140
    assert server.requests == []  # counting does not consume the script


async def test_unknown_paths_get_a_404_json_error() -> None:
    async with FakeAnthropicServer([]) as server:
        with pytest.raises(anthropic.NotFoundError) as info:
            await server.client().models.list()
    assert info.value.type == "not_found_error"


def test_sync_context_manager_and_clean_shutdown() -> None:
    threads_before = set(threading.enumerate())
    with FakeAnthropicServer([Reply(content=[text("hi")], delay=60.0)]) as server:
        port = server.port
        assert server.base_url == f"http://127.0.0.1:{port}"
        # Leave a connection open mid-stream: stop() must still return promptly.
        body = json.dumps({**REQUEST, "stream": True}).encode()
        conn = socket.create_connection(("127.0.0.1", port))
        conn.sendall(b"POST /v1/messages HTTP/1.1\r\nHost: x\r\ncontent-length: %d\r\n\r\n%s" % (len(body), body))
        conn.recv(1)  # the response has started
        started = time.monotonic()
    # Generous: only separates "waited for the 60 s stream" from "did not" on a shared machine.
    assert time.monotonic() - started < 20
    conn.close()
    assert set(threading.enumerate()) <= threads_before
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=0.5)
