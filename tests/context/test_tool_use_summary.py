"""Tool-use summaries (SPEC §5): optional one-line labels by a small model, produced during
the next model call, never waited for, failures ignored."""

from __future__ import annotations

import time

from nb_agent.context.config import ContextConfig
from nb_agent.context.tool_use_summary import generate_tool_use_summary
from nb_agent.testing import ErrorReply, Reply, text, tool_use
from nb_agent.testing.collect import collect
from nb_agent.testing.tools import RecordingTool


def _turns(delay: float = 0.0) -> list[Reply]:
    return [
        Reply(content=[tool_use("Echo", {"value": "a"}, id="t1"), tool_use("Echo", {"value": "b"}, id="t2")]),
        Reply(content=[text("x" * 160)], delay=delay),
    ]


async def test_a_summary_arrives_during_the_next_call(make_engine, fake_model):
    model = fake_model(_turns(delay=0.02), tool_summaries=[Reply(content=[text("Echoed a and b\nsecond line")], model="claude-haiku-4-5")])
    engine = make_engine(model.transport(), context=ContextConfig(tool_use_summaries=True), tools=[RecordingTool("Echo")])
    out = await collect(engine, "echo")
    assert out.result.subtype == "success"
    [summary] = out.of_type("tool_use_summary")
    assert summary.summary == "Echoed a and b" and summary.preceding_tool_use_ids == ["t1", "t2"]
    [request] = model.tool_summary_requests
    assert request["model"] == "claude-haiku-4-5" and "stream" not in request
    assert "Echo(" in request["messages"][0]["content"][0]["text"] and "Echo: a" in request["messages"][0]["content"][0]["text"]
    assert "claude-haiku-4-5" in engine.usage.by_model
    events = [e.type for e in out.events]
    assert events.index("tool_use_summary") > max(i for i, e in enumerate(out.events) if e.type == "user" and e.tool_result_ids)


async def test_the_summary_uses_the_small_fast_model_from_the_environment(make_engine, fake_model, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_DEFAULT_HAIKU_MODEL", "claude-haiku-4-5-20251001")
    monkeypatch.setenv("ANTHROPIC_SMALL_FAST_MODEL", "my-small-model")
    model = fake_model(_turns(delay=0.02), tool_summaries=[Reply(content=[text("Echoed")])])
    engine = make_engine(model.transport(), context=ContextConfig(tool_use_summaries=True), tools=[RecordingTool("Echo")])
    await collect(engine, "echo")
    [request] = model.tool_summary_requests
    assert request["model"] == "my-small-model"


async def test_a_failing_summary_is_ignored(make_engine, fake_model):
    model = fake_model(_turns(), tool_summaries=[ErrorReply(status=529, error_type="overloaded_error")])
    engine = make_engine(model.transport(), context=ContextConfig(tool_use_summaries=True), tools=[RecordingTool("Echo")])
    out = await collect(engine, "echo")
    assert out.result.subtype == "success" and not out.of_type("tool_use_summary")


async def test_a_slow_summary_never_holds_up_the_run(make_engine, fake_model):
    slow = Reply(content=[text("late label")], stream_duration=60.0, chunk_size=1)
    model = fake_model(_turns(), tool_summaries=[slow])
    engine = make_engine(model.transport(), context=ContextConfig(tool_use_summaries=True), tools=[RecordingTool("Echo")])
    started = time.monotonic()
    out = await collect(engine, "echo")
    # Generous: only separates "waited for the 60 s summary" from "did not" (shared machines);
    # a run that waited would also carry the summary, which the next line rules out.
    assert time.monotonic() - started < 20
    assert out.result.subtype == "success" and not out.of_type("tool_use_summary")


async def test_off_by_default(make_engine, fake_model):
    model = fake_model(_turns())
    engine = make_engine(model.transport(), tools=[RecordingTool("Echo")])
    out = await collect(engine, "echo")
    assert out.result.subtype == "success" and model.tool_summary_requests == []


async def test_generate_never_raises():
    async def broken(request):
        raise RuntimeError("boom")

    block = {"type": "tool_use", "id": "t", "name": "Bash", "input": {"command": "ls"}}
    assert await generate_tool_use_summary([block], [], ask=broken, model="m") is None
    assert await generate_tool_use_summary([], [], ask=broken, model="m") is None
