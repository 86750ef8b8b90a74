"""The output cap (SPEC §2): requests start at 8,192 output tokens, a cut-off answer
escalates to 64k once — never above the model's own maximum — then up to three
"continue" nudges before the error surfaces."""

from __future__ import annotations

import pytest

from nb_agent.engine import EngineOptions
from nb_agent.loop.query import MAX_OUTPUT_TOKENS_RECOVERY_TEXT
from nb_agent.testing import Reply, ScriptedTransport, text
from nb_agent.testing.collect import collect

CUT = Reply(content=[text("part of a long answer")], stop_reason="max_tokens")


def _last_text(request: dict) -> str:
    return " ".join(b.get("text", "") for b in request["messages"][-1]["content"])


async def test_cut_off_answer_escalates_to_64k_and_is_withdrawn(make_engine):
    transport = ScriptedTransport([CUT, Reply(content=[text("the whole answer")])])
    engine = make_engine(transport, model="claude-sonnet-4-6")
    out = await collect(engine, "write a lot")
    assert [r["max_tokens"] for r in transport.requests] == [8_192, 64_000]
    assert out.result.subtype == "success" and out.result.text == "the whole answer"
    [cut] = [e for e in out.events if e.type == "assistant" and e.text == "part of a long answer"]
    assert [e.target_uuid for e in out.of_type("tombstone")] == [cut.uuid]
    assert all(m.uuid != cut.uuid for m in engine.messages)


async def test_escalation_never_exceeds_the_models_maximum(make_engine):
    transport = ScriptedTransport([CUT, Reply(content=[text("rest")])])
    engine = make_engine(transport, model="claude-3-5-haiku-20241022")
    out = await collect(engine, "write a lot")
    assert [r["max_tokens"] for r in transport.requests] == [8_192, 8_192]
    assert out.result.subtype == "success"
    assert MAX_OUTPUT_TOKENS_RECOVERY_TEXT in _last_text(transport.requests[1]), "no escalation: straight to a nudge"


@pytest.mark.parametrize(("model", "configured", "sent"), [("claude-opus-4-1", 64_000, 32_000), ("claude-sonnet-4-6", 100_000, 64_000), ("claude-sonnet-4-6", 16_000, 16_000)])
async def test_a_configured_cap_is_bounded_by_the_model(make_engine, tmp_path, model, configured, sent):
    from nb_agent.engine import EngineConfig, QueryEngine
    from nb_agent.model.retry import NO_RETRIES

    transport = ScriptedTransport([Reply(content=[text("ok")])])
    config = EngineConfig(cwd=tmp_path, model=model, max_output_tokens=configured, options=EngineOptions(retry_policy=NO_RETRIES))
    await collect(QueryEngine(config=config, transport=transport), "hi")
    assert transport.requests[0]["max_tokens"] == sent


async def test_three_nudges_then_the_error_surfaces(make_engine):
    transport = ScriptedTransport([CUT] * 5)
    engine = make_engine(transport, model="claude-sonnet-4-6")
    out = await collect(engine, "write a lot")
    assert [r["max_tokens"] for r in transport.requests] == [8_192] + [64_000] * 4
    assert [MAX_OUTPUT_TOKENS_RECOVERY_TEXT in _last_text(r) for r in transport.requests] == [False, False, True, True, True]
    assert out.result.is_error and out.result.error == "max_output_tokens"
    [notice] = [e for e in out.of_type("system") if e.subtype == "max_output_tokens"]
    assert "64,000" in notice.content
