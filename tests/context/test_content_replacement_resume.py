"""Resume sends byte-identical history (SPEC §3): content-replacement decisions are in the
transcript and rebuilt on resume, also when the transcript's last line is torn."""

from __future__ import annotations

import json

from nb_agent.context.config import ContextConfig
from nb_agent.context.tool_result_storage import PERSISTED_OUTPUT_TAG
from nb_agent.engine import EngineConfig, EngineOptions, QueryEngine
from nb_agent.model.retry import NO_RETRIES
from nb_agent.testing import Reply, ScriptedTransport, text, tool_use
from nb_agent.testing.collect import collect

BUDGET = ContextConfig(tool_result_budget_chars=40_000)


def _history_turns() -> list[Reply]:
    return [
        Reply(content=[tool_use("Fetch", {"chars": 30_000, "label": "a"}, id="t_a"), tool_use("Fetch", {"chars": 20_000, "label": "b"}, id="t_b")]),
        Reply(content=[text("first done")]),
        Reply(content=[tool_use("Fetch", {"chars": 45_000, "label": "c"}, id="t_c")]),
        Reply(content=[text("second done")]),
    ]


async def _original(make_engine, sized_tool) -> tuple[QueryEngine, ScriptedTransport]:
    transport = ScriptedTransport(_history_turns())
    engine = make_engine(transport, context=BUDGET, tools=[sized_tool("Fetch")])
    for prompt in ("first", "second"):
        out = await collect(engine, prompt)
        assert out.result.subtype == "success", out.result
    return engine, transport


def _resume(engine: QueryEngine, sized_tool, transport: ScriptedTransport) -> tuple[QueryEngine, list[str]]:
    config = EngineConfig(cwd=engine.config.cwd, model=engine.config.model, options=EngineOptions(retry_policy=NO_RETRIES, context=BUDGET))
    return QueryEngine.resume(engine.transcript_path, config=config, transport=transport, tools=[sized_tool("Fetch")])


async def _next_request(engine: QueryEngine, transport: ScriptedTransport) -> str:
    before = len(transport.requests)
    transport.script.add(Reply(content=[text("third done")]))
    out = await collect(engine, "third")
    assert out.result.subtype == "success", out.result
    return json.dumps(transport.requests[before]["messages"], sort_keys=True)


async def test_a_resumed_session_sends_byte_identical_history(make_engine, sized_tool):
    original, transport = await _original(make_engine, sized_tool)
    sent = json.dumps(transport.requests[1]["messages"])
    assert PERSISTED_OUTPUT_TAG in sent and "[b]" + "x" * 19_997 in sent  # t_a replaced, t_b kept
    entries = [json.loads(line) for line in original.transcript_path.read_text().splitlines()]
    decisions = [r for e in entries if e["kind"] == "content_replacement" for r in e["records"]]
    assert [(r["tool_use_id"], r["replacement"] is not None) for r in decisions] == [("t_a", True), ("t_b", False), ("t_c", True)]
    original.transcript.close()

    resumed_transport = ScriptedTransport()
    resumed, warnings = _resume(original, sized_tool, resumed_transport)
    assert warnings == []
    assert resumed.context_manager.replacement_state.replacements == original.context_manager.replacement_state.replacements
    expected = await _next_request(original, transport)
    assert await _next_request(resumed, resumed_transport) == expected


async def test_a_torn_last_line_is_dropped_with_a_warning_and_the_rest_reconstructed(make_engine, sized_tool):
    original, transport = await _original(make_engine, sized_tool)
    original.transcript.close()
    with open(original.transcript_path, "a", encoding="utf-8") as f:
        f.write('{"kind": "message", "session_id": "x", "message": {"type": "user", "content": "half a li')
    resumed_transport = ScriptedTransport()
    resumed, warnings = _resume(original, sized_tool, resumed_transport)
    assert len(warnings) == 1 and "damaged" in warnings[0]
    assert set(resumed.context_manager.replacement_state.replacements) == {"t_a", "t_c"}
    expected = await _next_request(original, transport)
    assert await _next_request(resumed, resumed_transport) == expected
    # the repaired transcript keeps working: a second resume reads the new turn too
    resumed.transcript.close()
    again, warnings = _resume(resumed, sized_tool, ScriptedTransport())
    assert any(m.type == "assistant" and m.text == "third done" for m in again.messages)


async def test_lost_decisions_are_made_again_identically(make_engine, sized_tool):
    """Decisions depend only on a batch's own results, and persisting is idempotent, so even
    a transcript without its content_replacement entries resumes to the same bytes."""
    original, transport = await _original(make_engine, sized_tool)
    original.transcript.close()
    lines = original.transcript_path.read_text().splitlines()
    original.transcript_path.write_text("\n".join(line for line in lines if '"kind": "content_replacement"' not in line) + "\n")
    resumed_transport = ScriptedTransport()
    resumed, _ = _resume(original, sized_tool, resumed_transport)
    assert resumed.context_manager.replacement_state.replacements == {}
    expected = await _next_request(original, transport)
    assert await _next_request(resumed, resumed_transport) == expected
