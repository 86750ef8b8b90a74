"""Every terminal reason of SPEC §2, reached by a scripted run of ``query()``."""

from __future__ import annotations

import asyncio

from nb_agent.abort import AbortController
from nb_agent.hooks import HookOutput, Hooks
from nb_agent.loop.pipeline import ToolRunDeps
from nb_agent.loop.state import TERMINAL_REASONS
from nb_agent.messages import INTERRUPT_MESSAGE
from nb_agent.testing import ErrorReply, Reply, prompt_too_long_error, text, tool_use
from nb_agent.testing.collect import assert_history_invariant
from nb_agent.testing.harness import run_query, tool_context
from nb_agent.testing.tools import RecordingTool

COVERED: set[str] = set()


def covers(reason: str):
    """Marks the test that reaches ``reason``; the last test checks every reason has one."""
    COVERED.add(reason)
    return lambda test: test


def _abort_later(controller: AbortController, seconds: float) -> None:
    asyncio.get_running_loop().call_later(seconds, controller.abort, INTERRUPT_MESSAGE)


# Bounds on how long a stop may take only separate "waited for the slow reply" (~100 s) from
# "did not"; these machines are shared and slow. bench/hook_stop.py measures the Stop target.
GENEROUS_S = 20


def _result_texts(run) -> dict[str, str]:
    return {b["tool_use_id"]: b["content"] for m in run.of_type("user") if not isinstance(m.content, str) for b in m.content}


@covers("completed")
async def test_completed():
    run = await run_query([Reply(content=[text("hello")])])
    assert run.terminal.reason == "completed" and run.terminal.error is None


@covers("aborted_streaming")
async def test_aborted_while_streaming_stops_at_once():
    abort = AbortController()
    slow = Reply(content=[text("x" * 800)], delay=2.0)  # ~110 s of streaming
    _abort_later(abort, 0.2)
    async with asyncio.timeout(GENEROUS_S):
        run = await run_query([slow], ctx=tool_context(abort=abort))
    assert run.terminal.reason == "aborted_streaming"


async def test_aborted_before_the_first_event_arrives():
    abort = AbortController()
    silent = ErrorReply(status=500, delay=100)  # the server says nothing for 100 s
    _abort_later(abort, 0.1)
    async with asyncio.timeout(GENEROUS_S):  # in this task, so its cancelling() count is checked
        run = await run_query([silent], ctx=tool_context(abort=abort))
    assert run.terminal.reason == "aborted_streaming"
    assert asyncio.current_task().cancelling() == 0, "the abort's own cancellation is not left pending"


async def test_aborted_while_streaming_answers_started_tools():
    abort = AbortController()
    echo = RecordingTool("Echo")
    # The text after the tool_use streams for ~100 s: the abort lands while it streams
    # however long the tool takes to start on a loaded machine.
    slow = Reply(content=[tool_use("Echo", {"value": "a", "sleep": 5}), text("x" * 32_000)], delay=0.05)

    async def abort_once_the_tool_runs() -> None:
        await echo.started.wait()
        abort.abort(INTERRUPT_MESSAGE)

    aborter = asyncio.ensure_future(abort_once_the_tool_runs())
    run = await run_query([slow], ctx=tool_context([echo], abort=abort))
    assert aborter.done()
    assert run.terminal.reason == "aborted_streaming"
    assert list(_result_texts(run).values()) == [f"<tool_use_error>{INTERRUPT_MESSAGE}</tool_use_error>"]
    assert echo.calls[0].cancelled
    assert_history_invariant(run.history)


@covers("aborted_tools")
async def test_aborted_while_tools_run():
    abort = AbortController()
    echo = RecordingTool("Echo")
    _abort_later(abort, 0.2)
    run = await run_query(
        [Reply(content=[tool_use("Echo", {"value": "a", "sleep": 5}), tool_use("Echo", {"value": "b"})])],
        ctx=tool_context([echo], abort=abort),
    )
    assert run.terminal.reason == "aborted_tools"
    texts = list(_result_texts(run).values())
    assert texts[0] == f"<tool_use_error>{INTERRUPT_MESSAGE}</tool_use_error>"
    assert texts[1] == "Echo: b"
    assert_history_invariant(run.history)


@covers("blocking_limit")
async def test_blocking_limit():
    run = await run_query([], deps={"is_at_blocking_limit": lambda messages, model: True})
    assert run.terminal.reason == "blocking_limit"
    assert run.requests == []
    assert any(e.type == "system" and e.subtype == "blocking_limit" for e in run.events)


@covers("prompt_too_long")
async def test_prompt_too_long_without_recovery():
    run = await run_query([prompt_too_long_error()])
    assert run.terminal.reason == "prompt_too_long"
    [error] = [e for e in run.of_type("assistant") if e.is_api_error_message]
    assert "prompt is too long" in error.text.lower()


@covers("image_error")
async def test_image_error():
    too_big = ErrorReply(status=400, error_type="invalid_request_error", message="messages.0.content.1.image.source.base64: image exceeds 5 MB maximum")
    run = await run_query([too_big])
    assert run.terminal.reason == "image_error"
    assert "image exceeds" in run.terminal.error


@covers("model_error")
async def test_model_error_mid_stream_after_a_tool_use():
    echo = RecordingTool("Echo")
    broken = Reply(content=[tool_use("Echo", {"value": "a"}), text("y" * 200)], error_after_events=8)
    run = await run_query([broken], tools=[echo])
    assert run.terminal.reason == "model_error"
    assert "Overloaded" in run.terminal.error
    assert len(_result_texts(run)) == 1
    assert_history_invariant(run.history)


async def test_model_error_without_tool_uses_completes_with_the_error():
    run = await run_query([ErrorReply(status=500)])
    assert run.terminal.reason == "completed"
    assert "500" in run.terminal.error


@covers("max_turns")
async def test_max_turns():
    run = await run_query(
        [Reply(content=[tool_use("Echo", {"value": "a"})]), Reply(content=[tool_use("Echo", {"value": "b"})])],
        tools=[RecordingTool("Echo")],
        max_turns=2,
    )
    assert run.terminal.reason == "max_turns" and run.terminal.turn_count == 2
    assert_history_invariant(run.history)


@covers("hook_stopped")
async def test_hook_stopped_by_pre_tool_use_continue_false():
    async def pre(hook_input):
        return HookOutput(continue_=False, stop_reason="policy says stop")

    hooks = Hooks()
    hooks.add("PreToolUse", pre)
    run = await run_query(
        [Reply(content=[tool_use("Echo", {"value": "a"})])], tools=[RecordingTool("Echo")], tool_run_deps=ToolRunDeps(hooks=hooks)
    )
    assert run.terminal.reason == "hook_stopped"
    assert "policy says stop" in next(iter(_result_texts(run).values()))
    assert_history_invariant(run.history)


@covers("stop_hook_prevented")
async def test_stop_hook_prevented():
    async def stop(hook_input):
        return HookOutput(continue_=False, stop_reason="enough for today")

    hooks = Hooks()
    hooks.add("Stop", stop)
    run = await run_query([Reply(content=[text("done")])], tool_run_deps=ToolRunDeps(hooks=hooks))
    assert run.terminal.reason == "stop_hook_prevented"
    assert any(e.type == "system" and e.content == "enough for today" for e in run.events)


def test_every_terminal_reason_is_covered():
    assert COVERED == set(TERMINAL_REASONS)
