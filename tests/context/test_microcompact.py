"""Microcompact (SPEC §4): old results of compactable tools are cleared — after an hour's
pause (time-based) or when the window nears its limit (pressure) — the most recent ones
kept; a cleared result stays cleared, across turns and a resume."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

from nb_agent.context.config import ContextConfig
from nb_agent.context.microcompact import CLEARED_MESSAGE, MicrocompactState, microcompact_messages
from nb_agent.context.tokens import IMAGE_TOKENS, estimate_message_tokens
from nb_agent.engine import EngineConfig, EngineOptions, QueryEngine
from nb_agent.messages import AssistantMessage, UserMessage, tool_result_message
from nb_agent.model.retry import NO_RETRIES
from nb_agent.testing import Reply, ScriptedTransport, text, tool_use
from nb_agent.testing.collect import assert_tool_result_invariant, collect


def _results(request: dict) -> dict[str, str]:
    return {
        b["tool_use_id"]: b["content"]
        for m in request["messages"]
        for b in m["content"]
        if b.get("type") == "tool_result"
    }


def _calls(names: list[str], chars: int = 2_000) -> list[Reply]:
    turns = [Reply(content=[tool_use(name, {"chars": chars, "label": f"{i}"}, id=f"t{i}")]) for i, name in enumerate(names)]
    return [*turns, Reply(content=[text("done")])]


class Clock:
    def __init__(self) -> None:
        self.now = datetime.now(timezone.utc)

    def __call__(self) -> datetime:
        return self.now


async def test_after_an_hour_old_results_are_cleared_and_stay_cleared(make_engine, sized_tool):
    names = ["Grep"] * 7 + ["Fetch"]
    transport = ScriptedTransport(_calls(names))
    engine = make_engine(transport, tools=[sized_tool("Grep"), sized_tool("Fetch")])
    clock = Clock()
    engine.context_manager.clock = clock
    await collect(engine, "search")
    assert all(CLEARED_MESSAGE not in json.dumps(r) for r in transport.requests)

    clock.now += timedelta(minutes=61)
    transport.script.add(Reply(content=[text("back")]))
    await collect(engine, "anything new?")
    results = _results(transport.requests[-1])
    cleared = sorted(i for i, c in results.items() if c == CLEARED_MESSAGE)
    assert cleared == ["t0", "t1"], "all but the 5 most recent Grep results"
    assert results["t7"].startswith("[7]"), "Fetch is not a compactable tool"
    assert_tool_result_invariant(transport.requests[-1]["messages"])

    clock.now += timedelta(minutes=1)  # no pause now: the clears are re-applied anyway
    transport.script.add(Reply(content=[text("again")]))
    await collect(engine, "and now?")
    assert sorted(i for i, c in _results(transport.requests[-1]).items() if c == CLEARED_MESSAGE) == ["t0", "t1"]

    engine.transcript.close()
    config = EngineConfig(cwd=engine.config.cwd, model=engine.config.model, options=EngineOptions(retry_policy=NO_RETRIES))
    resumed_transport = ScriptedTransport([Reply(content=[text("resumed")])])
    resumed, _ = QueryEngine.resume(engine.transcript_path, config=config, transport=resumed_transport, tools=[sized_tool("Grep"), sized_tool("Fetch")])
    resumed.context_manager.clock = clock
    await collect(resumed, "resumed?")
    assert sorted(i for i, c in _results(resumed_transport.requests[0]).items() if c == CLEARED_MESSAGE) == ["t0", "t1"]


async def test_the_time_trigger_never_fires_while_the_prompt_cache_may_live(make_engine, sized_tool):
    """A gap configured below the cache's 5 minutes is raised to it: clearing then would
    throw away a cache that could still be read."""
    transport = ScriptedTransport(_calls(["Grep"] * 7))
    engine = make_engine(transport, context=ContextConfig(microcompact_gap_minutes=1), tools=[sized_tool("Grep")])
    clock = Clock()
    engine.context_manager.clock = clock
    await collect(engine, "search")
    clock.now += timedelta(minutes=4)
    transport.script.add(Reply(content=[text("back")]))
    await collect(engine, "more?")
    assert CLEARED_MESSAGE not in json.dumps(transport.requests[-1])
    clock.now += timedelta(minutes=6)
    transport.script.add(Reply(content=[text("later")]))
    await collect(engine, "and later?")
    assert CLEARED_MESSAGE in json.dumps(transport.requests[-1])
    assert engine.context_manager.stats.microcompact_clears_by_trigger == {"time": 1, "pressure": 0}


async def test_a_short_pause_clears_nothing(make_engine, sized_tool):
    transport = ScriptedTransport(_calls(["Grep"] * 7))
    engine = make_engine(transport, tools=[sized_tool("Grep")])
    clock = Clock()
    engine.context_manager.clock = clock
    await collect(engine, "search")
    clock.now += timedelta(minutes=59)
    transport.script.add(Reply(content=[text("back")]))
    await collect(engine, "more?")
    assert CLEARED_MESSAGE not in json.dumps(transport.requests[-1])


async def test_pressure_near_the_window_limit_clears_in_bulk(make_engine, sized_tool, fake_model):
    # 60k window: effective 40k, warning at 20k tokens; each result is about 4k tokens.
    context = ContextConfig(context_window=60_000, microcompact_keep_recent=2)
    model = fake_model(_calls(["Read"] * 6, chars=16_000))
    transport = model.transport()
    engine = make_engine(transport, context=context, tools=[sized_tool("Read")])
    out = await collect(engine, "read them all")
    assert out.result.subtype == "success" and model.summary_requests == []
    cleared_per_request = [sorted(i for i, c in _results(r).items() if c == CLEARED_MESSAGE) for r in model.main_requests]
    assert cleared_per_request[:5] == [[], [], [], [], []]
    assert cleared_per_request[5] == ["t0", "t1", "t2"], "one bulk clear keeping the 2 most recent"
    assert cleared_per_request[6] == ["t0", "t1", "t2"]
    assert engine.context_manager.stats.microcompact_clears == 1
    assert engine.context_manager.stats.microcompact_clears_by_trigger == {"time": 0, "pressure": 1}
    entries = [json.loads(line) for line in engine.transcript_path.read_text().splitlines()]
    assert [e["trigger"] for e in entries if e["kind"] == "microcompact"] == ["pressure"]


def test_image_results_are_measured_at_2000_tokens_and_cleared():
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "A" * 400_000}}
    use = AssistantMessage(content=[{"type": "tool_use", "id": "t_img", "name": "Read", "input": {}}], message_id="m1", model="m")
    result = tool_result_message("t_img", [image])
    assert estimate_message_tokens(result) < IMAGE_TOKENS + 20
    later = [
        AssistantMessage(content=[{"type": "tool_use", "id": "t_new", "name": "Read", "input": {}}], message_id="m2", model="m"),
        tool_result_message("t_new", "recent"),
    ]
    state = MicrocompactState()
    out = microcompact_messages([UserMessage(content="go"), use, result, *later], state, compactable_tools={"Read"}, keep_recent=1, trigger="time")
    assert out.newly_cleared == ["t_img"]
    assert out.messages[2].content[0]["content"] == CLEARED_MESSAGE
    assert out.messages[4].content[0]["content"] == "recent"
