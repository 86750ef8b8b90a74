"""The JSONL transcript: written as messages arrive, resumable, robust to a torn last line."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel

from nb_agent.engine import EngineConfig, QueryEngine
from nb_agent.testing import Reply, ScriptedTransport, text, tool_use
from nb_agent.testing.collect import assert_tool_result_invariant, collect
from nb_agent.testing.tools import FunctionTool, RecordingTool
from nb_agent.transcript import load_transcript


def _entries(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _messages(entries: list[dict]) -> list[dict]:
    return [e["message"] for e in entries if e["kind"] == "message"]


class _NoInput(BaseModel):
    pass


async def test_the_transcript_is_written_as_messages_arrive(make_engine):
    snapshots: list[list[dict]] = []

    async def peek(input, ctx):
        snapshots.append(_entries(Path(ctx.services.transcript_path)))
        return "peeked"

    engine, _ = make_engine(
        [Reply(content=[text("let me look"), tool_use("Peek", {}, id="toolu_peek")]), Reply(content=[text("done")])],
        tools=[FunctionTool("Peek", peek, _NoInput)],
    )
    await collect(engine, "look at the transcript")
    [during] = snapshots
    messages = _messages(during)
    assert messages[0]["type"] == "user" and messages[0]["content"] == "look at the transcript"
    requesting = [m for m in messages if m["type"] == "assistant" and any(b.get("id") == "toolu_peek" for b in m["content"])]
    assert len(requesting) == 1, "the assistant message that asked for the tool is already on disk"
    assert not any(m["type"] == "user" and m.get("source_tool_use_id") == "toolu_peek" for m in messages)
    after = _messages(_entries(engine.transcript_path))
    assert any(m.get("source_tool_use_id") == "toolu_peek" for m in after)
    assert _entries(engine.transcript_path)[-1]["kind"] == "result"


async def _two_submissions(tmp_path: Path) -> tuple[QueryEngine, ScriptedTransport]:
    transport = ScriptedTransport(
        [
            Reply(content=[text("running"), tool_use("Echo", {"value": "a"})]),
            Reply(content=[text("first done")]),
            Reply(content=[text("second done")]),
        ]
    )
    engine = QueryEngine(config=EngineConfig(cwd=tmp_path), tools=[RecordingTool("Echo")], transport=transport)
    await collect(engine, "first")
    await collect(engine, "second")
    engine.close()
    return engine, transport


async def test_resume_sends_the_same_history(tmp_path):
    original, original_transport = await _two_submissions(tmp_path)
    resumed_transport = ScriptedTransport([Reply(content=[text("third done")])])
    resumed, warnings = QueryEngine.resume(
        original.transcript_path, transport=resumed_transport, tools=[RecordingTool("Echo")], config=EngineConfig(cwd=tmp_path)
    )
    assert warnings == []
    assert resumed.session_id == original.session_id
    assert resumed.transcript_path == original.transcript_path
    assert [m.uuid for m in resumed.messages] == [m.uuid for m in original.messages]
    assert resumed.usage.total == original.usage.total

    original_transport.script.add(Reply(content=[text("third done")]))
    original = QueryEngine(config=original.config, tools=[RecordingTool("Echo")], transport=original_transport, session_id=original.session_id, messages=original.messages)
    await collect(original, "third")
    out = await collect(resumed, "third")
    assert out.result.subtype == "success"
    assert resumed_transport.requests[0]["messages"] == original_transport.requests[-1]["messages"]
    assert resumed_transport.requests[0]["system"] == original_transport.requests[-1]["system"]


async def test_a_torn_last_line_is_skipped_with_a_warning(tmp_path):
    original, _ = await _two_submissions(tmp_path)
    path = original.transcript_path
    lines = path.read_bytes().split(b"\n")
    message_lines = [i for i, line in enumerate(lines) if b'"kind": "message"' in line]
    last = message_lines[-1]
    torn = b"\n".join(lines[:last]) + b"\n" + lines[last][: len(lines[last]) // 2]
    path.write_bytes(torn)

    resumed, warnings = QueryEngine.resume(path, transport=ScriptedTransport([Reply(content=[text("after the crash")])]))
    assert len(warnings) == 1 and "last line" in warnings[0]
    assert [m.uuid for m in resumed.messages] == [m.uuid for m in original.messages[:-1]]
    out = await collect(resumed, "are you there?")
    assert out.result.subtype == "success"
    reloaded = load_transcript(path)
    assert len(reloaded.warnings) == 1, "only the torn line is lost; new entries start on a fresh line"
    assert reloaded.messages[-1].text == "after the crash"


async def test_resume_after_a_crash_between_tool_use_and_result(tmp_path):
    transport = ScriptedTransport([Reply(content=[tool_use("Echo", {"value": "a"}, id="toolu_lost")]), Reply(content=[text("ok")])])
    engine = QueryEngine(config=EngineConfig(cwd=tmp_path), tools=[RecordingTool("Echo")], transport=transport)
    await collect(engine, "go")
    engine.close()
    path = engine.transcript_path
    lines = path.read_text().splitlines(keepends=True)
    cut = next(i for i, line in enumerate(lines) if '"toolu_lost"' in line and '"tool_result"' in line)
    path.write_text("".join(lines[:cut]) + lines[cut][:40])  # died while writing the result

    resumed_transport = ScriptedTransport([Reply(content=[text("resumed")])])
    resumed, warnings = QueryEngine.resume(path, transport=resumed_transport)
    assert len(warnings) == 1
    out = await collect(resumed, "continue")
    assert out.result.subtype == "success"
    assert_tool_result_invariant(resumed_transport.requests[0]["messages"])


def test_resumed_usage_is_what_adding_each_entry_gave():
    """A resume sums thousands of usage entries as numbers (one Usage per model); the totals,
    the context size (the last main-agent request) and the subagents' share (absorbed, never
    the context size) are what adding the entries one by one gave."""
    import random

    from nb_agent.engine import UsageTotals
    from nb_agent.model.pricing import Usage

    rng = random.Random(7)
    entries = []
    for i in range(500):
        usage = Usage(input_tokens=rng.randint(0, 9_000), output_tokens=rng.randint(0, 900), cache_creation_input_tokens=rng.randint(0, 90), cache_read_input_tokens=rng.randint(0, 90_000))
        entry = {"kind": "usage", "model": rng.choice(["claude-sonnet-4-6", "claude-haiku-4-5"]), "usage": usage.__dict__}
        entries.append({**entry, "agent_id": "a1"} if i % 7 == 0 or i == 499 else entry)
    one_by_one = UsageTotals()
    for entry in entries:
        (one_by_one.absorb if entry.get("agent_id") else one_by_one.add)(entry["model"], Usage(**entry["usage"]))
    restored = UsageTotals()
    restored.restore(entries)
    assert restored.by_model == one_by_one.by_model and len(restored.by_model) == 2
    assert restored.last_request == one_by_one.last_request == Usage(**entries[498]["usage"])
    assert restored.cost_usd == one_by_one.cost_usd
