"""THE invariant: every tool_use gets exactly one tool_result, on every path.

Each test drives one path, checks the engine's history, then submits a follow-up and
checks every request the engine sent (``check_invariant`` in conftest).
"""

from __future__ import annotations

import asyncio

import pytest

from nb_agent.engine import EngineConfig, EngineOptions, QueryEngine
from nb_agent.messages import INTERRUPT_MESSAGE
from nb_agent.model.retry import NO_RETRIES
from nb_agent.model.transport import AnthropicTransport
from nb_agent.permissions.types import PermissionAsk, PermissionDeny, PermissionPolicy
from nb_agent.testing import ErrorReply, FakeAnthropicServer, Reply, text, tool_use
from nb_agent.testing.collect import assert_history_invariant, assert_tool_result_invariant, collect
from nb_agent.testing.tools import RecordingTool


def _results(engine) -> dict[str, str]:
    return {
        b["tool_use_id"]: b["content"]
        for m in engine.messages
        if m.type == "user" and not isinstance(m.content, str)
        for b in m.content
        if b.get("type") == "tool_result"
    }


def _after_turn(*calls, **reply):
    return [Reply(content=list(calls), **reply), Reply(content=[text("ok")])]


async def test_success(make_engine, check_invariant):
    engine, transport = make_engine(_after_turn(tool_use("Echo", {"value": "a"}), tool_use("Echo", {"value": "b"})), tools=[RecordingTool("Echo")])
    await collect(engine, "go")
    assert list(_results(engine).values()) == ["Echo: a", "Echo: b"]
    await check_invariant(engine, transport)


async def test_tool_exception(make_engine, check_invariant):
    engine, transport = make_engine(_after_turn(tool_use("Echo", {"crash": True}), tool_use("Echo", {"fail": True})), tools=[RecordingTool("Echo")])
    await collect(engine, "go")
    assert all("<tool_use_error>" in r for r in _results(engine).values())
    await check_invariant(engine, transport)


async def test_validation_error(make_engine, check_invariant):
    engine, transport = make_engine(_after_turn(tool_use("Echo", {"sleep": "soon"})), tools=[RecordingTool("Echo")])
    await collect(engine, "go")
    assert "InputValidationError" in next(iter(_results(engine).values()))
    await check_invariant(engine, transport)


async def test_denial(make_engine, check_invariant):
    class Deny(PermissionPolicy):
        async def decide(self, tool, input, ctx):
            return PermissionDeny(message="not allowed")

    engine, transport = make_engine(_after_turn(tool_use("Echo", {})), tools=[RecordingTool("Echo")], permission_policy=Deny())
    await collect(engine, "go")
    assert "not allowed" in next(iter(_results(engine).values()))
    await check_invariant(engine, transport)


async def test_unknown_tool(make_engine, check_invariant):
    engine, transport = make_engine(_after_turn(tool_use("Nope", {}), tool_use("Echo", {})), tools=[RecordingTool("Echo")])
    await collect(engine, "go")
    assert "No such tool available: Nope" in list(_results(engine).values())[0]
    await check_invariant(engine, transport)


@pytest.mark.parametrize("streaming", [True, False], ids=["streaming", "after-the-stream"])
async def test_sibling_abort(make_engine, check_invariant, tmp_path, streaming):
    """A failing Bash call cancels its running siblings, whether tools start while the model
    streams or once the stream has ended (the old batch path let the sibling run on)."""
    calls = [tool_use("Echo", {"sleep": 5}), tool_use("Bash", {"fail": True, "sleep": 0.05})]
    config = EngineConfig(
        cwd=tmp_path, model="claude-sonnet-4-6", streaming_tool_execution=streaming, options=EngineOptions(retry_policy=NO_RETRIES)
    )
    engine, transport = make_engine(_after_turn(*calls), tools=[RecordingTool("Echo"), RecordingTool("Bash")], config=config)
    out = await collect(engine, "go")
    assert out.result.subtype == "success"
    assert "Cancelled: parallel tool call Bash(" in _results(engine)[calls[0]["id"]]
    await check_invariant(engine, transport)


async def test_user_abort_during_streaming(make_engine, check_invariant):
    slow = Reply(content=[tool_use("Echo", {"value": "a"}), tool_use("Echo", {"value": "b", "sleep": 5}), text("z" * 800)], delay=0.02)
    engine, transport = make_engine([slow], tools=[RecordingTool("Echo")])
    result = None
    async for event in engine.submit_message("go"):  # Stop once the text streams: both tool_uses are in
        delta = getattr(getattr(event, "event", None), "delta", None)
        if getattr(delta, "type", None) == "text_delta":
            engine.interrupt()
        if getattr(event, "type", None) == "result":
            result = event
    assert result is not None and result.subtype == "interrupted" and result.terminal_reason == "aborted_streaming"
    assert len(_results(engine)) == 2
    await check_invariant(engine, transport)


async def test_user_abort_from_a_tools_progress(make_engine, check_invariant):
    engine_ref = []

    class Interrupting(RecordingTool):
        async def call(self, input, ctx, on_progress):
            engine_ref[0].interrupt()
            return await super().call(input, ctx, on_progress)

    slow = Reply(content=[tool_use("Stop", {}), text("z" * 800)], delay=0.02)
    engine, transport = make_engine([slow], tools=[Interrupting("Stop")])
    engine_ref.append(engine)
    out = await collect(engine, "go")
    assert out.result.terminal_reason == "aborted_streaming"
    await check_invariant(engine, transport)


async def test_user_abort_during_tools(make_engine, check_invariant):
    calls = [tool_use("Echo", {"value": "fast"}), tool_use("Echo", {"value": "slow", "sleep": 5}), tool_use("Unsafe", {})]
    echo = RecordingTool("Echo")
    engine, transport = make_engine([Reply(content=calls)], tools=[echo, RecordingTool("Unsafe", concurrency_safe=False)])
    run = asyncio.create_task(collect(engine, "go"))
    await _until(lambda: [(c.value, c.ended is not None) for c in echo.calls] == [("fast", True), ("slow", False)])
    engine.interrupt()  # the fast one done, the slow one running, the unsafe one waiting
    out = await run
    assert out.result.terminal_reason == "aborted_tools"
    results = _results(engine)
    assert results[calls[0]["id"]] == "Echo: fast"
    assert results[calls[1]["id"]] == results[calls[2]["id"]] == f"<tool_use_error>{INTERRUPT_MESSAGE}</tool_use_error>"
    await check_invariant(engine, transport)


async def test_abort_while_waiting_for_permission(make_engine, check_invariant):
    class Ask(PermissionPolicy):
        async def decide(self, tool, input, ctx):
            return PermissionAsk(message="?")

    asked = asyncio.Event()

    async def never_answers(tool, request, ctx):
        asked.set()
        await asyncio.Event().wait()

    engine, transport = make_engine(
        [Reply(content=[tool_use("Echo", {}), tool_use("Echo", {})])], tools=[RecordingTool("Echo")], permission_policy=Ask(), can_use_tool=never_answers
    )
    run = asyncio.create_task(collect(engine, "go"))
    await asyncio.wait_for(asked.wait(), 30)
    engine.interrupt()
    out = await asyncio.wait_for(run, 30)
    assert out.result.terminal_reason == "aborted_tools"
    assert len(_results(engine)) == 2
    await check_invariant(engine, transport)


async def test_model_error_mid_stream(make_engine, check_invariant):
    calls = [tool_use("Echo", {"value": "a"}), tool_use("Echo", {"value": "b", "sleep": 5})]
    broken = Reply(content=[*calls, text("z" * 400)], error_after_events=14, delay=0.01)
    engine, transport = make_engine([broken], tools=[RecordingTool("Echo")])
    out = await collect(engine, "go")
    assert out.result.terminal_reason == "model_error" and out.result.is_error
    assert len(_results(engine)) == 2
    await check_invariant(engine, transport)


async def test_connection_dropped_mid_stream(make_engine, check_invariant):
    dropped = Reply(content=[tool_use("Echo", {"value": "a"}), text("z" * 400)], drop_after_events=8)
    engine, transport = make_engine([dropped], tools=[RecordingTool("Echo")])
    out = await collect(engine, "go")
    assert out.result.is_error
    assert len(_results(engine)) == 1
    await check_invariant(engine, transport)


async def test_error_replies(make_engine, check_invariant):
    engine, transport = make_engine([ErrorReply(status=529, error_type="overloaded_error"), ErrorReply(status=500)])
    for _ in range(2):
        out = await collect(engine, "go")
        assert out.result.is_error
    await check_invariant(engine, transport)


async def _until(condition) -> None:
    """Until ``condition()`` holds: each test acts at a point of the run, never after a
    guessed delay (a loaded machine reaches it later); 30 s only tells "late" from "never"."""
    async with asyncio.timeout(30):
        while not condition():
            await asyncio.sleep(0.005)


async def _cancel_mid_run(engine, condition) -> None:
    task = asyncio.create_task(collect(engine, "go"))
    await _until(condition)
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        pass


async def test_cancelled_consumer_during_tools(make_engine, check_invariant):
    echo = RecordingTool("Echo")
    engine, transport = make_engine([Reply(content=[tool_use("Echo", {"sleep": 5}), tool_use("Echo", {"sleep": 5})])], tools=[echo])
    await _cancel_mid_run(engine, lambda: len(echo.calls) == 2)  # both running
    assert len(_results(engine)) == 2
    assert all(c.cancelled for c in echo.calls)
    await check_invariant(engine, transport)


async def test_cancelled_consumer_during_streaming(make_engine, check_invariant):
    echo = RecordingTool("Echo")
    slow = Reply(content=[tool_use("Echo", {"sleep": 5}), text("z" * 800)], delay=0.02)
    engine, transport = make_engine([slow], tools=[echo])
    await _cancel_mid_run(engine, lambda: len(echo.calls) == 1)  # the tool runs while the text streams
    assert len(_results(engine)) == 1
    await asyncio.sleep(0)
    assert all(c.cancelled for c in echo.calls)
    await check_invariant(engine, transport)


async def test_cancelled_consumer_while_it_renders(make_engine, check_invariant):
    """The Stop arrives while the consumer itself awaits (e.g. rendering), not inside the loop."""
    echo = RecordingTool("Echo")
    engine, transport = make_engine([Reply(content=[tool_use("Echo", {"sleep": 5}), tool_use("Echo", {"value": "x"})])], tools=[echo])

    rendering = asyncio.Event()

    async def consume():
        assistant_messages = 0
        async for event in engine.submit_message("go"):
            assistant_messages += event.type == "assistant"
            if assistant_messages == 2:
                rendering.set()
                await asyncio.sleep(5)  # a slow renderer, while the first tool runs

    task = asyncio.create_task(consume())
    await asyncio.wait_for(rendering.wait(), 30)
    await _until(lambda: len(echo.calls) == 1)
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        pass
    [running] = echo.calls
    await _until(lambda: running.ended is not None)  # "no tool keeps running after the run is gone"
    assert running.cancelled
    assert_history_invariant(engine.messages)
    await check_invariant(engine, transport)


async def test_abort_through_the_real_sdk(tmp_path):
    """The same abort, over HTTP: the stream is closed and the next request is valid."""
    slow = Reply(content=[tool_use("Echo", {"value": "a"}), text("z" * 800)], delay=2.0)  # ~110 s
    async with FakeAnthropicServer([slow, Reply(content=[text("ok")])]) as server:
        echo = RecordingTool("Echo")
        engine = QueryEngine(config=EngineConfig(cwd=tmp_path), tools=[echo], transport=AnthropicTransport(client=server.client()))
        run = asyncio.create_task(collect(engine, "go"))
        await asyncio.wait_for(echo.started.wait(), 30)  # the tool_use is in; the text streams
        engine.interrupt()
        out = await run
        assert out.result.terminal_reason == "aborted_streaming"
        # Generous: only separates "waited for the ~110 s stream" from "did not" (shared machines).
        assert out.result.duration_s < 20
        again = await collect(engine, "again")
        assert again.result.subtype == "success"
    assert_history_invariant(engine.messages)
    assert_tool_result_invariant(server.requests[1]["messages"])
