"""The session keeps the conversation across submissions."""

from __future__ import annotations

from nb_agent.engine import EngineConfig, ask
from nb_agent.messages import normalize_for_api
from nb_agent.testing import Reply, ScriptedTransport, text, tool_use
from nb_agent.testing.collect import assert_history_invariant, collect
from nb_agent.testing.tools import RecordingTool


def _unmarked(messages: list[dict]) -> list[dict]:
    """The messages without the prompt-cache breakpoints the request adds."""
    out = []
    for message in messages:
        content = message["content"]
        if isinstance(content, list):
            content = [{k: v for k, v in b.items() if k != "cache_control"} for b in content]
        out.append({**message, "content": content})
    return out


def _texts(api_message) -> list[str]:
    return [b.get("text") or b.get("content") for b in api_message["content"]]


async def test_second_request_includes_the_first_exchange(make_engine):
    engine, transport = make_engine(
        [
            Reply(content=[text("checking"), tool_use("Echo", {"value": "a"}, id="toolu_1")]),
            Reply(content=[text("first answer")]),
            Reply(content=[text("second answer")]),
        ],
        tools=[RecordingTool("Echo")],
    )
    first = await collect(engine, "first question")
    second = await collect(engine, "second question")
    assert (first.result.text, second.result.text) == ("first answer", "second answer")
    sent = _unmarked(transport.requests[2]["messages"])
    assert [m["role"] for m in sent] == ["user", "assistant", "user", "assistant", "user"]
    assert _texts(sent[0])[-1] == "first question"
    assert sent[1]["content"][1]["id"] == "toolu_1"
    assert sent[2]["content"][0] == {"type": "tool_result", "tool_use_id": "toolu_1", "content": "Echo: a"}
    assert _texts(sent[3]) == ["first answer"]
    assert _texts(sent[4]) == ["second question"]
    assert sent[1:-1] == normalize_for_api(engine.messages)[1:-2]
    assert engine.turn_count == 3


async def test_yielded_events_end_with_one_result(make_engine):
    engine, _ = make_engine([Reply(content=[text("hi")])])
    events = [e async for e in engine.submit_message("hello")]
    assert events[0].type == "user" and events[0].content == "hello"
    assert [e.type for e in events].count("result") == 1 and events[-1].type == "result"
    assert any(e.type == "stream_event" for e in events)
    assert events[-1].num_turns == 1 and events[-1].session_id == engine.session_id


async def test_ask_one_shot(tmp_path):
    transport = ScriptedTransport([Reply(content=[text("42")])])
    result = await ask("the answer?", transport=transport, config=EngineConfig(cwd=tmp_path))
    assert result.subtype == "success" and result.text == "42"
    transport.script.assert_exhausted()


async def test_new_conversation_forgets_history(make_engine):
    engine, transport = make_engine([Reply(content=[text("a")]), Reply(content=[text("b")])])
    await collect(engine, "one")
    old_session = engine.session_id
    engine.new_conversation()
    await collect(engine, "two")
    assert engine.session_id != old_session
    assert _texts(transport.requests[1]["messages"][-1])[-1] == "two"
    assert len(transport.requests[1]["messages"]) == 1


async def test_max_budget_usd_stops_the_run(make_engine, tmp_path):
    expensive = Reply(content=[tool_use("Echo", {"value": "a"})], input_tokens=100_000)  # $0.30 on Sonnet
    config = EngineConfig(cwd=tmp_path, model="claude-sonnet-4-6", max_budget_usd=0.10)
    engine, transport = make_engine([expensive, Reply(content=[text("never")])], tools=[RecordingTool("Echo")], config=config)
    out = await collect(engine, "go")
    assert out.result.subtype == "error_max_budget_usd" and out.result.is_error
    assert out.result.total_cost_usd > 0.10
    assert len(transport.requests) == 1
    assert transport.script.remaining == 1

    assert_history_invariant(engine.messages)


async def test_max_budget_usd_checked_at_the_end_of_a_text_answer(make_engine, tmp_path):
    config = EngineConfig(cwd=tmp_path, model="claude-sonnet-4-6", max_budget_usd=0.10)
    engine, _ = make_engine([Reply(content=[text("pricey")], input_tokens=100_000)], config=config)
    out = await collect(engine, "go")
    assert out.result.subtype == "error_max_budget_usd"
