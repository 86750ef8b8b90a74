"""The Anthropic client's streaming request, sent as encoded content (not as data the SDK
copies first), reaches the API as the SDK's own ``messages.create`` sends it."""

from __future__ import annotations

from nb_agent.model.transport import AnthropicTransport
from nb_agent.testing import FakeAnthropicServer, Reply, text

REQUEST = {
    "model": "claude-sonnet-4-6",
    "max_tokens": 64,
    "system": [{"type": "text", "text": "Be brief. Ünïcödé, \"quotes\" and \\ stay as they are.", "cache_control": {"type": "ephemeral"}}],
    "messages": [
        {"role": "user", "content": [{"type": "text", "text": "hi \u2603 \U0001f600"}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "Echo", "input": {"value": 1.5, "n": None}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}]},
    ],
    "tools": [{"name": "Echo", "description": "echo", "input_schema": {"type": "object", "properties": {}}}],
}


async def test_streamed_request_is_sent_as_the_sdk_sends_it():
    async with FakeAnthropicServer([Reply(content=[text("one")]), Reply(content=[text("two")])]) as server:
        client = server.client()
        transport = AnthropicTransport(client=client)
        events = [event async for event in transport.stream(REQUEST)]
        sdk_stream = await client.messages.create(**REQUEST, stream=True)
        sdk_events = [event async for event in sdk_stream]
    assert [e.type for e in events] == [e.type for e in sdk_events]
    ours, sdk = server.requests
    assert ours == sdk == {**REQUEST, "stream": True}
    ours_headers, sdk_headers = server.request_headers
    volatile = {"content-length", "x-stainless-retry-count", "x-stainless-read-timeout", "x-stainless-timeout"}
    assert {k: v for k, v in ours_headers.items() if k not in volatile} == {k: v for k, v in sdk_headers.items() if k not in volatile}
    assert ours_headers["content-type"] == "application/json"
