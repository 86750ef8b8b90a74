"""Retries and the fallback model, seen from the session: withdrawn attempts keep the invariant."""

from __future__ import annotations

from nb_agent.engine import EngineConfig, EngineOptions
from nb_agent.model.retry import RetryPolicy
from nb_agent.testing import ErrorReply, Reply, text, tool_use
from nb_agent.testing.collect import assert_history_invariant, assert_tool_result_invariant, collect
from nb_agent.testing.tools import RecordingTool

FAST = RetryPolicy(base_delay_s=0.001, max_delay_s=0.001, jitter=0)


def _config(tmp_path, **kw):
    return EngineConfig(cwd=tmp_path, model="claude-sonnet-4-6", options=EngineOptions(retry_policy=FAST), **kw)


async def test_three_overloaded_answers_switch_to_the_fallback_model(make_engine, tmp_path):
    overloaded = ErrorReply(status=529, error_type="overloaded_error")
    engine, transport = make_engine(
        [overloaded, overloaded, overloaded, Reply(content=[text("from the fallback")], model="claude-haiku-4-5")],
        config=_config(tmp_path, fallback_model="claude-haiku-4-5"),
    )
    out = await collect(engine, "hi")
    assert out.result.subtype == "success" and out.result.text == "from the fallback"
    assert [r["model"] for r in transport.requests] == ["claude-sonnet-4-6"] * 3 + ["claude-haiku-4-5"]
    assert any(
        e.type == "system" and e.content == "Switched to claude-haiku-4-5 due to high demand for claude-sonnet-4-6" for e in out.events
    )


async def test_a_stream_retried_midway_withdraws_the_failed_attempt(make_engine, tmp_path):
    echo = RecordingTool("Echo")
    first = tool_use("Echo", {"value": "first try"})
    broken = Reply(content=[first, text("z" * 300)], error_after_events=10, error_type="api_error")
    again = tool_use("Echo", {"value": "second try"})
    engine, transport = make_engine(
        [broken, Reply(content=[again]), Reply(content=[text("done")])], tools=[echo], config=_config(tmp_path)
    )
    out = await collect(engine, "go")
    assert out.result.subtype == "success"
    assert out.of_type("tombstone"), "the failed attempt's messages are withdrawn"
    history_ids = {b["id"] for m in engine.messages if m.type == "assistant" for b in m.tool_uses}
    assert history_ids == {again["id"]}
    assert_history_invariant(engine.messages)
    for request in transport.requests:
        assert_tool_result_invariant(request["messages"])
