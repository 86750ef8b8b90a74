"""A held reply: both doubles stream up to the hold, wait for ``release``, then finish; a
server that stops ends a held stream instead of hanging on it."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx2

from nb_agent.testing import FakeAnthropicServer, Reply, ScriptedTransport, held_at_end, reply_events, text, tool_use

REQUEST = {"model": "claude-haiku-4-5", "max_tokens": 1024, "messages": [{"role": "user", "content": "hi"}]}
SETTLE_S = 0.2
"""How long the test lets a wrongly unheld event arrive (a loaded machine can only hide a
broken hold this way, never fail a working one)."""


def _held() -> Reply:
    return held_at_end(Reply(content=[text("first"), tool_use("Read", {"file_path": "/x"}, id="toolu_h")], chunk_size=3))


def test_the_hold_is_before_the_last_blocks_end():
    reply = _held()
    assert reply.hold_after_events is not None
    types = [event["type"] for event in reply_events(reply, message_id="m")]
    sent, held = types[: reply.hold_after_events], types[reply.hold_after_events :]
    assert held == ["content_block_stop", "message_delta", "message_stop"]
    assert sent.count("content_block_stop") == 1 and sent[-1] == "content_block_delta"


async def _read_through_the_hold(events: Any, reply: Reply) -> list[str]:
    assert reply.hold_after_events is not None
    seen = [(await anext(events)).type for _ in range(reply.hold_after_events)]
    pending = asyncio.ensure_future(anext(events))
    await asyncio.sleep(SETTLE_S)
    assert not pending.done(), "the stream went on before it was released"
    reply.release.set()
    seen.append((await pending).type)
    return seen + [event.type async for event in events]


async def test_the_fake_server_holds_the_stream_until_released():
    reply = _held()
    async with FakeAnthropicServer([reply]) as server:
        stream = await server.client().messages.create(**REQUEST, stream=True)
        seen = await _read_through_the_hold(stream.__aiter__(), reply)
    assert seen[reply.hold_after_events :] == ["content_block_stop", "message_delta", "message_stop"]


async def test_the_scripted_transport_holds_the_stream_until_released():
    reply = _held()
    seen = await _read_through_the_hold(ScriptedTransport([reply]).stream(REQUEST).__aiter__(), reply)
    assert seen[reply.hold_after_events :] == ["content_block_stop", "message_delta", "message_stop"]


async def test_a_server_that_stops_ends_a_held_stream():
    reply = _held()
    assert reply.hold_after_events is not None
    server = FakeAnthropicServer([reply]).start()
    try:
        stream = await server.client().messages.create(**REQUEST, stream=True)
        events = stream.__aiter__()
        for _ in range(reply.hold_after_events):
            await anext(events)
        pending = asyncio.ensure_future(anext(events))
    finally:
        await asyncio.to_thread(server.stop)  # returns once the held handler has let go
    try:
        await pending
    except httpx2.RemoteProtocolError:
        pass  # the connection was cut, as a stopping server does
    else:
        raise AssertionError("a held stream went on without being released")
    assert not reply.release.is_set()
