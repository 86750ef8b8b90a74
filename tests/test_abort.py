"""Abort signals and the abortable model stream."""

from __future__ import annotations

import asyncio
import gc
import threading
import time
import weakref

import pytest

from nb_agent.abort import AbortableStream, AbortController


async def _ticks(n: int, gap: float, closed: list[bool]):
    try:
        for i in range(n):
            await asyncio.sleep(gap)
            yield i
    finally:
        closed.append(True)


def test_children_abort_with_their_parent_not_the_other_way():
    parent = AbortController()
    child = parent.child()
    child.abort("sibling failed")
    assert child.signal.aborted and not parent.signal.aborted
    other = parent.child()
    parent.abort("stop")
    assert other.signal.reason == "stop"
    assert child.signal.reason == "sibling failed", "the first reason wins"


def test_callbacks_fire_once_and_at_once_when_already_aborted():
    controller = AbortController()
    seen = []
    remove = controller.signal.add_callback(seen.append)
    removed = []
    controller.signal.add_callback(removed.append)()  # removed straight away
    controller.abort("x")
    controller.abort("y")
    assert seen == ["x"] and removed == []
    controller.signal.add_callback(seen.append)
    assert seen == ["x", "x"]
    remove()


async def test_wait_wakes_on_an_abort_from_another_thread():
    controller = AbortController()
    threading.Timer(0.05, controller.abort, args=("from a widget thread",)).start()
    assert await asyncio.wait_for(controller.signal.wait(), 2) == "from a widget thread"


async def test_abortable_stream_stops_while_waiting_for_the_next_item():
    controller = AbortController()
    closed: list[bool] = []
    threading.Timer(0.1, controller.abort).start()
    started = time.monotonic()
    stream = AbortableStream(_ticks(100, 60, closed), controller.signal)
    items = [i async for i in stream]
    await stream.aclose()
    assert items == []
    # Generous: only separates "waited for the 60 s gap" from "did not" on a shared, slow
    # machine; bench/hook_stop.py measures the Stop target.
    assert time.monotonic() - started < 20
    assert closed == [True]
    assert asyncio.current_task().cancelling() == 0


async def test_abortable_stream_passes_items_through_and_stops_after_an_abort():
    controller = AbortController()
    stream = AbortableStream(_ticks(5, 0, []), controller.signal)
    got = []
    async for item in stream:
        got.append(item)
        if item == 1:
            controller.abort()
    assert got == [0, 1]


async def test_a_foreign_cancellation_still_propagates():
    controller = AbortController()

    async def consume():
        async for _ in AbortableStream(_ticks(100, 0.5, []), controller.signal):
            pass

    task = asyncio.ensure_future(consume())
    await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


def test_a_detached_child_no_longer_follows_its_parent():
    parent = AbortController()
    done, running = parent.child(), parent.child()
    assert parent.signal.listener_count == 2
    done.detach()
    done.detach()  # idempotent
    assert parent.signal.listener_count == 1
    parent.abort("stop")
    assert running.signal.reason == "stop" and not done.signal.aborted
    AbortController().detach()  # not a child: nothing to undo


def test_parent_and_child_hold_no_cycle_between_them():
    parent = AbortController()
    child = parent.child()
    child_signal = weakref.ref(child.signal)
    gc.disable()
    try:
        del parent, child  # reference counting alone frees both: no full collection needed
        assert child_signal() is None
    finally:
        gc.enable()
