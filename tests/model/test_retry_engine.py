"""Retries through the engine (SPEC §5): transient failures are retried with backoff, a
stream that failed midway is withdrawn before its retry (nothing duplicated), repeated
529s switch to the fallback model, and the invariant holds on every path."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from nb_agent.engine import EngineConfig, EngineOptions, QueryEngine
from nb_agent.model.retry import RetryPolicy
from nb_agent.testing import (
    ErrorReply,
    Reply,
    ScriptedTransport,
    overloaded_error,
    prompt_too_long_error,
    rate_limit_error,
    text,
    tool_use,
)
from nb_agent.testing.collect import assert_history_invariant, assert_tool_result_invariant, collect
from nb_agent.testing.retry import RetryRecorder
from nb_agent.testing.tools import RecordingTool


def _engine(tmp_path: Path, turns, *, fallback: str | None = None, tools=(), sleep=None) -> tuple[QueryEngine, ScriptedTransport, RetryRecorder]:
    recorder = RetryRecorder()
    policy = RetryPolicy(sleep=sleep or recorder, random=lambda: 0.0)
    config = EngineConfig(cwd=tmp_path, model="claude-opus-4-6", fallback_model=fallback, options=EngineOptions(retry_policy=policy))
    transport = ScriptedTransport(turns)
    return QueryEngine(config=config, transport=transport, tools=list(tools)), transport, recorder


def _check(engine: QueryEngine, transport: ScriptedTransport) -> None:
    assert_history_invariant(engine.messages)
    for request in transport.requests:
        assert_tool_result_invariant(request["messages"])


async def test_overloaded_twice_then_success(tmp_path):
    engine, transport, recorder = _engine(tmp_path, [overloaded_error(), overloaded_error(), Reply(content=[text("hi")])])
    out = await collect(engine, "hello")
    assert out.result.subtype == "success" and out.result.text == "hi"
    assert recorder.delays == [0.5, 1.0]
    notices = [e for e in out.of_type("system") if e.subtype == "api_retry"]
    assert len(notices) == 2 and "529" in notices[0].content and "attempt 2/11" in notices[0].content
    assert len(transport.requests) == 3 and transport.requests[0] == transport.requests[2]


async def test_rate_limit_waits_for_retry_after(tmp_path):
    engine, transport, recorder = _engine(tmp_path, [rate_limit_error(retry_after=3), Reply(content=[text("hi")])])
    out = await collect(engine, "hello")
    assert out.result.subtype == "success" and recorder.delays == [3.0]


async def test_a_stream_that_fails_midway_is_withdrawn_before_the_retry(tmp_path):
    echo = RecordingTool("Echo")
    first = [text("Let me check."), tool_use("Echo", {"value": "a"}, id="t_first"), text("z" * 200)]
    broken = Reply(content=first, error_after_events=12, error_type="api_error")
    turns = [broken, Reply(content=[text("Let me check."), tool_use("Echo", {"value": "a"}, id="t_second")]), Reply(content=[text("done")])]
    engine, transport, recorder = _engine(tmp_path, turns, tools=[echo])
    out = await collect(engine, "go")
    assert out.result.subtype == "success" and out.result.text == "done"
    withdrawn = {e.target_uuid for e in out.of_type("tombstone")}
    first_attempt = [e for e in out.events if e.type == "assistant" and any(b.get("id") == "t_first" for b in e.content)]
    assert first_attempt and {m.uuid for m in first_attempt} <= withdrawn
    # the retried request is the original one: nothing from the failed attempt leaked in
    assert transport.requests[1]["messages"] == transport.requests[0]["messages"]
    sent = json.dumps(transport.requests[2]["messages"])
    assert "t_first" not in sent and sent.count("t_second") == 2 and sent.count("Let me check.") == 1
    assert all("t_first" not in json.dumps(m.content) for m in engine.messages if m.type in ("user", "assistant"))
    assert recorder.delays == [0.5]
    _check(engine, transport)


async def test_a_dropped_connection_mid_stream_is_retried(tmp_path):
    dropped = Reply(content=[text("partial"), text("z" * 300)], drop_after_events=5)
    engine, transport, _ = _engine(tmp_path, [dropped, Reply(content=[text("complete")])])
    out = await collect(engine, "go")
    assert out.result.subtype == "success" and out.result.text == "complete"
    assert [m.text for m in engine.messages if m.type == "assistant"] == ["complete"]
    assert len(out.of_type("tombstone")) == 1


async def test_three_529s_switch_to_the_fallback_model(tmp_path):
    turns = [overloaded_error(), overloaded_error(), overloaded_error(), Reply(content=[text("from sonnet")], model="claude-sonnet-4-6")]
    engine, transport, recorder = _engine(tmp_path, turns, fallback="claude-sonnet-4-6")
    out = await collect(engine, "go")
    assert out.result.subtype == "success" and out.result.text == "from sonnet"
    assert [r["model"] for r in transport.requests] == ["claude-opus-4-6"] * 3 + ["claude-sonnet-4-6"]
    [warning] = [e for e in out.of_type("system") if e.subtype == "fallback"]
    assert warning.content == "Switched to claude-sonnet-4-6 due to high demand for claude-opus-4-6"
    assert recorder.delays == [0.5, 1.0]


async def test_three_529s_without_a_fallback_surface_the_error(tmp_path):
    engine, transport, _ = _engine(tmp_path, [overloaded_error()] * 3)
    out = await collect(engine, "go")
    assert out.result.is_error and "529" in (out.result.error or "")
    assert len(transport.requests) == 3


async def test_529_mid_stream_after_a_tool_ran_falls_back_cleanly(tmp_path):
    echo = RecordingTool("Echo")
    broken = Reply(content=[tool_use("Echo", {"value": "a"}), text("z" * 200)], error_after_events=8, error_type="overloaded_error")
    turns = [broken, broken, broken, Reply(content=[tool_use("Echo", {"value": "b"}, id="t_ok")], model="claude-sonnet-4-6"), Reply(content=[text("done")])]
    engine, transport, _ = _engine(tmp_path, turns, fallback="claude-sonnet-4-6", tools=[echo])
    out = await collect(engine, "go")
    assert out.result.subtype == "success"
    results = [b["tool_use_id"] for m in engine.messages if m.type == "user" for b in (m.content if isinstance(m.content, list) else []) if b.get("type") == "tool_result"]
    assert results == ["t_ok"]
    _check(engine, transport)


async def test_prompt_too_long_and_bad_requests_are_not_retried(tmp_path):
    engine, transport, recorder = _engine(tmp_path, [prompt_too_long_error(), ErrorReply(status=400, error_type="invalid_request_error")])
    out = await collect(engine, "go")
    assert out.result.terminal_reason == "prompt_too_long" and len(transport.requests) == 1
    out = await collect(engine, "again")
    assert out.result.is_error and len(transport.requests) == 2 and recorder.delays == []


async def test_an_abort_during_the_wait_ends_the_run(tmp_path):
    holder: dict[str, QueryEngine] = {}

    async def sleep(seconds: float) -> None:
        holder["engine"].interrupt()
        await asyncio.sleep(30)

    engine, transport, _ = _engine(tmp_path, [overloaded_error(), Reply(content=[text("never")])], sleep=sleep)
    holder["engine"] = engine
    out = await asyncio.wait_for(collect(engine, "go"), 5)
    assert out.result.terminal_reason == "aborted_streaming" and len(transport.requests) == 1
