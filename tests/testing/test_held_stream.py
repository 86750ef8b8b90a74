"""A held reply: both doubles stream up to the hold, wait for ``release``, then finish; a
server that stops ends a held stream instead of hanging on it."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx2
import pytest

from nb_agent.testing import (
    FakeAnthropicServer,
    Reply,
    ScriptedTransport,
    held_at_end,
    held_partway,
    reply_events,
    text,
    tool_use,
)

REQUEST = {"model": "claude-haiku-4-5", "max_tokens": 1024, "messages": [{"role": "user", "content": "hi"}]}
SETTLE_S = 0.2
"""How long the test lets a wrongly unheld event arrive (a loaded machine can only hide a
broken hold this way, never fail a working one)."""


def _held() -> Reply:
    return held_at_end(Reply(content=[text("first"), tool_use("Read", {"file_path": "/x"}, id="toolu_h")], chunk_size=3))


def test_the_hold_is_before_the_last_blocks_end():
    reply = _held()
    (hold,) = reply.hold_after_events
    types = [event["type"] for event in reply_events(reply, message_id="m")]
    sent, held = types[:hold], types[hold:]
    assert held == ["content_block_stop", "message_delta", "message_stop"]
    assert sent.count("content_block_stop") == 1 and sent[-1] == "content_block_delta"


async def _read_through_the_holds(events: Any, reply: Reply) -> list[str]:
    seen: list[str] = []
    for hold in reply.hold_after_events:
        seen += [(await anext(events)).type for _ in range(hold - len(seen))]
        pending = asyncio.ensure_future(anext(events))
        await asyncio.sleep(SETTLE_S)
        assert not pending.done(), f"the stream went on past its hold after {hold} events before it was released"
        reply.release.set()
        seen.append((await pending).type)
    return seen + [event.type async for event in events]


async def test_the_fake_server_holds_the_stream_until_released():
    reply = _held()
    async with FakeAnthropicServer([reply]) as server:
        stream = await server.client().messages.create(**REQUEST, stream=True)
        seen = await _read_through_the_holds(stream.__aiter__(), reply)
    assert seen[reply.hold_after_events[0] :] == ["content_block_stop", "message_delta", "message_stop"]


async def test_the_scripted_transport_holds_the_stream_until_released():
    reply = _held()
    seen = await _read_through_the_holds(ScriptedTransport([reply]).stream(REQUEST).__aiter__(), reply)
    assert seen[reply.hold_after_events[0] :] == ["content_block_stop", "message_delta", "message_stop"]


def _twice_held() -> Reply:
    return held_partway(Reply(content=[text("a longer answer, held twice on its way")], chunk_size=3), 1 / 3, 2 / 3)


async def test_both_doubles_hold_at_each_hold_and_a_release_lets_one_go():
    whole = [event["type"] for event in reply_events(_twice_held(), message_id="m")]
    reply = _twice_held()
    assert len(reply.hold_after_events) == 2
    async with FakeAnthropicServer([reply]) as server:
        stream = await server.client().messages.create(**REQUEST, stream=True)
        assert await _read_through_the_holds(stream.__aiter__(), reply) == whole
    reply = _twice_held()
    assert await _read_through_the_holds(ScriptedTransport([reply]).stream(REQUEST).__aiter__(), reply) == whole


def test_holds_must_fall_inside_the_stream():
    reply = Reply(content=[text("short")])
    for fractions in [(), (0.0,), (1.0,)]:
        with pytest.raises(ValueError, match="strictly inside"):
            held_partway(reply, *fractions)


async def test_a_server_that_stops_ends_a_held_stream():
    reply = _held()
    server = FakeAnthropicServer([reply]).start()
    try:
        stream = await server.client().messages.create(**REQUEST, stream=True)
        events = stream.__aiter__()
        for _ in range(reply.hold_after_events[0]):
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
