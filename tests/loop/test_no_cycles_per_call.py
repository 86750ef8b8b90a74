"""Tool calls leave nothing in reference cycles: a long session's turns are freed as they
end, not at the interpreter's rare full collection (issue 24)."""

from __future__ import annotations

import pytest

from nb_agent.abort import AbortController
from nb_agent.loop.executor import StreamingToolExecutor
from nb_agent.loop.pipeline import ToolRunDeps
from nb_agent.testing import Reply, text, tool_use
from nb_agent.testing.cycles import cycles_left_behind
from nb_agent.testing.harness import run_query, tool_context
from nb_agent.testing.tools import RecordingTool

TURNS = 4
CALLS_PER_TURN = 5


async def _session(abort: AbortController, **behaviour: bool) -> int:
    echo = RecordingTool("Echo")
    inputs = [[{"value": f"{t}.{c}", **behaviour} for c in range(CALLS_PER_TURN)] for t in range(TURNS)]
    turns = [Reply(content=[tool_use("Echo", raw) for raw in turn]) for turn in inputs]
    run = await run_query([*turns, Reply(content=[text("done")])], tools=[echo], ctx=tool_context([echo], abort=abort))
    assert run.terminal is not None and run.terminal.reason == "completed"
    return len(echo.calls)


async def test_a_run_of_tool_calls_leaves_no_engine_object_in_a_cycle():
    abort = AbortController()
    with cycles_left_behind() as left:
        assert await _session(abort) == TURNS * CALLS_PER_TURN
    assert left.of_package("nb_agent") == []


@pytest.mark.parametrize("behaviour", [{"fail": True}, {"crash": True}], ids=["tool error", "tool bug"])
async def test_failing_calls_leave_no_engine_object_in_a_cycle(behaviour: dict[str, bool]):
    with cycles_left_behind() as left:
        assert await _session(AbortController(), **behaviour) == TURNS * CALLS_PER_TURN
    assert left.of_package("nb_agent") == []


async def test_the_runs_abort_signal_keeps_nothing_of_finished_turns():
    abort = AbortController()
    await _session(abort)
    assert abort.signal.listener_count == 0


async def test_stop_still_reaches_a_running_tool_after_earlier_turns_finished():
    echo = RecordingTool("Echo")
    ctx = tool_context([echo])
    first = StreamingToolExecutor(ctx=ctx, deps=ToolRunDeps())
    first.add_tool(tool_use("Echo", {"value": "quick"}))
    assert [u async for u in first.get_remaining_results()]
    second = StreamingToolExecutor(ctx=ctx, deps=ToolRunDeps())
    sleeper = tool_use("Echo", {"value": "slow", "sleep": 60})
    echo.started.clear()
    second.add_tool(sleeper)
    await echo.started.wait()
    assert ctx.abort_signal.listener_count == 1, "only the running turn follows the run's abort"
    ctx.abort_controller.abort("Interrupted by user")
    updates = [u async for u in second.get_remaining_results()]
    results = [u.message for u in updates if u.message.type == "user"]
    assert [m.source_tool_use_id for m in results] == [sleeper["id"]]
    assert echo.calls[-1].cancelled
    assert ctx.abort_signal.listener_count == 0
