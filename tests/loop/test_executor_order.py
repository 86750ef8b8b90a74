"""StreamingToolExecutor: lifecycle, ordered results, progress first."""

from __future__ import annotations

import asyncio

from nb_agent.loop.executor import StreamingToolExecutor
from nb_agent.loop.pipeline import ToolRunDeps
from nb_agent.testing import tool_use
from nb_agent.testing.harness import tool_context
from nb_agent.testing.tools import RecordingTool
from nb_agent.testing.waiting import eventually


def _executor(*tools):
    return StreamingToolExecutor(ctx=tool_context(tools), deps=ToolRunDeps())


def _statuses(executor):
    return [t.status for t in executor.tracked]


def _result_text(update):
    [block] = update.message.content
    return block["content"]


async def _drain(executor):
    return [u async for u in executor.get_remaining_results()]


async def test_queued_executing_completed_yielded():
    unsafe = RecordingTool("Unsafe", concurrency_safe=False)
    safe = RecordingTool("Safe")
    executor = _executor(unsafe, safe)
    executor.add_tool(tool_use("Unsafe", {"value": "u", "gated": True}))
    executor.add_tool(tool_use("Safe", {"value": "s", "gated": True}))
    assert _statuses(executor) == ["executing", "queued"]
    unsafe.gate.set()
    # the second starts once the unsafe one is done
    await eventually(lambda: _statuses(executor) == ["completed", "executing"], "the first tool completes, the second runs")
    [first] = executor.get_completed_results()
    assert _result_text(first) == "Unsafe: u"
    assert _statuses(executor) == ["yielded", "executing"]
    safe.gate.set()
    rest = await _drain(executor)
    assert [_result_text(u) for u in rest] == ["Safe: s"]
    assert _statuses(executor) == ["yielded", "yielded"]
    assert executor.missing_results() == []


async def test_results_come_out_in_order_even_when_later_tools_finish_first():
    echo = RecordingTool("Echo")
    executor = _executor(echo)
    for value, sleep in [("slow", 0.3), ("fast", 0.0), ("medium", 0.1)]:
        executor.add_tool(tool_use("Echo", {"value": value, "sleep": sleep}))
    await asyncio.sleep(0.15)
    assert executor.get_completed_results() == []  # "fast" and "medium" are done but wait for "slow"
    updates = await _drain(executor)
    assert [_result_text(u) for u in updates] == ["Echo: slow", "Echo: fast", "Echo: medium"]
    assert [c.value for c in sorted(echo.calls, key=lambda c: c.ended)] == ["fast", "medium", "slow"]


async def test_progress_is_yielded_at_once_before_earlier_results():
    echo = RecordingTool("Echo")
    executor = _executor(echo)
    executor.add_tool(tool_use("Echo", {"value": "first", "sleep": 0.3}))
    second = tool_use("Echo", {"value": "second", "progress": 2, "sleep": 0.3})
    executor.add_tool(second)
    await asyncio.sleep(0.05)
    ready = executor.get_completed_results()
    assert [u.message.type for u in ready] == ["progress", "progress"]
    assert {u.message.tool_use_id for u in ready} == {second["id"]}
    assert [u.message.data["step"] for u in ready] == [1, 2]
    updates = await _drain(executor)
    assert [u.message.type for u in updates] == ["user", "user"]


async def test_unknown_tool_completes_at_once_with_an_error():
    executor = _executor(RecordingTool("Echo"))
    block = tool_use("Nope", {})
    executor.add_tool(block)
    assert _statuses(executor) == ["completed"]
    [update] = executor.get_completed_results()
    assert update.is_error
    assert _result_text(update) == "<tool_use_error>Error: No such tool available: Nope</tool_use_error>"


async def test_discard_cancels_running_tools_and_yields_nothing_more():
    echo = RecordingTool("Echo")
    executor = _executor(echo)
    executor.add_tool(tool_use("Echo", {"value": "a", "sleep": 5}))
    executor.add_tool(tool_use("Echo", {"value": "b", "sleep": 5}))
    await asyncio.sleep(0.05)
    executor.discard()
    await asyncio.sleep(0.05)
    assert all(c.cancelled for c in echo.calls)
    assert executor.get_completed_results() == []
    assert await asyncio.wait_for(_drain(executor), 1) == []
    executor.add_tool(tool_use("Echo", {"value": "late"}))
    assert len(echo.calls) == 2 and executor.get_completed_results() == []


async def test_interruptible_only_when_every_running_tool_cancels():
    cancels = RecordingTool("Cancels", interrupt="cancel")
    blocks = RecordingTool("Blocks", interrupt="block")
    executor = _executor(cancels, blocks)
    executor.add_tool(tool_use("Cancels", {"sleep": 0.2}))
    assert executor.interruptible
    executor.add_tool(tool_use("Blocks", {"sleep": 0.2}))
    assert not executor.interruptible
    await _drain(executor)
