"""A failing Bash call cancels its running siblings; other tools' errors do not cascade."""

from __future__ import annotations

import time

from nb_agent.loop.executor import StreamingToolExecutor
from nb_agent.loop.pipeline import ToolRunDeps
from nb_agent.testing import tool_use
from nb_agent.testing.harness import tool_context
from nb_agent.testing.tools import RecordingTool


async def _run(tools, blocks):
    ctx = tool_context(tools)
    executor = StreamingToolExecutor(ctx=ctx, deps=ToolRunDeps())
    for block in blocks:
        executor.add_tool(block)
    updates = [u async for u in executor.get_remaining_results()]
    return ctx, {u.message.source_tool_use_id: u.message.content[0]["content"] for u in updates if u.message.type == "user"}


async def test_bash_error_cancels_a_sleeping_sibling():
    bash, echo = RecordingTool("Bash"), RecordingTool("Echo")
    sleeper = tool_use("Echo", {"value": "slow", "sleep": 60})
    failing = tool_use("Bash", {"value": "boom", "sleep": 0.05, "fail": True})
    started = time.monotonic()
    ctx, results = await _run([bash, echo], [sleeper, failing])
    # Generous: only separates "waited for the 60 s sleeper" from "did not" (shared machines).
    assert time.monotonic() - started < 20
    assert "Bash failed" in results[failing["id"]]
    assert results[sleeper["id"]].startswith("<tool_use_error>Cancelled: parallel tool call Bash(")
    assert echo.calls[0].cancelled
    assert not ctx.abort_signal.aborted, "a sibling abort does not stop the run"


async def test_bash_error_also_cancels_tools_queued_after_it():
    bash, echo = RecordingTool("Bash"), RecordingTool("Echo")
    unsafe = RecordingTool("Unsafe", concurrency_safe=False)
    failing = tool_use("Bash", {"value": "boom", "fail": True, "sleep": 0.05})
    later = tool_use("Unsafe", {"value": "after"})
    _, results = await _run([bash, echo, unsafe], [failing, later])
    assert "Cancelled: parallel tool call Bash(" in results[later["id"]]
    assert unsafe.calls == []


async def test_other_tool_errors_do_not_cascade():
    grep, echo = RecordingTool("Grep"), RecordingTool("Echo")
    sleeper = tool_use("Echo", {"value": "slow", "sleep": 0.2})
    failing = tool_use("Grep", {"value": "boom", "fail": True})
    crashing = tool_use("Grep", {"value": "bug", "crash": True})
    _, results = await _run([grep, echo], [sleeper, failing, crashing])
    assert results[sleeper["id"]] == "Echo: slow"
    assert "Grep failed" in results[failing["id"]]
    assert "RuntimeError" in results[crashing["id"]]
    assert not echo.calls[0].cancelled
