"""What a long session's transcript costs: each tool result stored once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nb_agent.engine import EngineConfig, EngineOptions, QueryEngine
from nb_agent.model.retry import NO_RETRIES
from nb_agent.testing import Reply, ScriptedTransport, text, tool_use
from nb_agent.testing.collect import collect
from nb_agent.tools.files.read import ReadTool


def _engine(tmp_path: Path, transport: ScriptedTransport, **kwargs) -> QueryEngine:
    config = EngineConfig(cwd=tmp_path, model="claude-sonnet-4-6", permission_mode="acceptEdits", options=EngineOptions(retry_policy=NO_RETRIES))
    return QueryEngine(config=config, transport=transport, **kwargs)


async def test_a_read_result_takes_its_size_once_in_the_transcript(tmp_path: Path):
    data = tmp_path / "sales.csv"
    data.write_text("date,region,revenue\n" + "2025-01-01,north,1234\n" * 1_000)  # 23 KB
    transport = ScriptedTransport([Reply(content=[tool_use("Read", {"file_path": str(data)})]), Reply(content=[text("read")])])
    engine = _engine(tmp_path, transport, tools=[ReadTool()])
    await collect(engine, "read it")
    engine.close()
    lines = [json.loads(line) for line in engine.transcript_path.read_text().splitlines()]
    [line] = [entry for entry in lines if entry["kind"] == "message" and entry["message"].get("source_tool_use_id")]
    assert line["message"]["tool_use_result"] is None
    sent = len(json.dumps(line["message"]["content"]))  # the file as the model read it (numbered lines)
    assert sent > 23_000 and len(json.dumps(line)) < sent + 1_000  # once, not twice


async def _session(tmp_path: Path, cells: int, turns: int) -> QueryEngine:
    data = tmp_path / "a.csv"
    data.write_text("x,y\n" + "1,2\n" * 2_000)
    transport = ScriptedTransport([])
    engine = _engine(tmp_path, transport, tools=[ReadTool()])
    for cell in range(cells):
        transport.script.add(*[Reply(content=[text(f"step {i}"), tool_use("Read", {"file_path": str(data)})]) for i in range(turns)])
        transport.script.add(Reply(content=[text(f"cell {cell} done")]))
        await collect(engine, f"cell {cell}: read the file {turns} times")
    engine.close()
    return engine


def _counted_lines(path: Path) -> int:
    entries = [json.loads(line) for line in path.read_text().splitlines()]
    return sum(1 for e in entries if e["kind"] == "message" and e["message"]["type"] in ("user", "assistant"))


async def test_listing_reads_the_head_and_the_tail_only(tmp_path: Path, monkeypatch):
    from nb_agent.jupyter import saved_sessions

    engine = await _session(tmp_path, cells=3, turns=20)
    path = engine.transcript_path
    assert path.stat().st_size > saved_sessions.HEAD_BYTES + saved_sessions.TAIL_BYTES
    monkeypatch.setattr(saved_sessions, "_count_all", lambda f: pytest.fail("read the whole transcript"))
    [info] = saved_sessions.list_sessions(path.parent)
    assert (info.session_id, info.first_prompt) == (engine.session_id, "cell 0: read the file 20 times")
    assert info.messages == _counted_lines(path)


async def test_a_transcript_written_before_the_counts_still_lists_and_resumes(tmp_path: Path):
    from nb_agent.jupyter import saved_sessions

    engine = await _session(tmp_path, cells=2, turns=3)
    path = engine.transcript_path
    old = []  # as 52546bb wrote it: no count in the result lines, each Read result twice
    for line in path.read_text().splitlines():
        entry = json.loads(line)
        if entry["kind"] == "result":
            entry.pop("messages")
        if entry["kind"] == "message" and entry["message"].get("source_tool_use_id"):
            entry["message"]["tool_use_result"] = {"type": "text", "file": {"content": "x,y\n1,2\n"}}
        old.append(json.dumps(entry))
    path.write_text("\n".join(old) + "\n")
    [info] = saved_sessions.list_sessions(path.parent)
    assert info.messages == _counted_lines(path)
    resumed, warnings = QueryEngine.resume(path, tools=[ReadTool()])
    assert not warnings and [m.uuid for m in resumed.messages] == [m.uuid for m in engine.messages]
    resumed.close()


async def test_the_fast_reader_reads_what_the_slow_one_does(tmp_path: Path, monkeypatch):
    from nb_agent import transcript

    engine = await _session(tmp_path, cells=2, turns=3)
    path = engine.transcript_path
    lines = path.read_text().splitlines()
    lines.insert(5, lines[5][: len(lines[5]) // 2])  # a torn line in the middle
    lines.append('{"kind": "message", "session_id": "x", "ts": "t", "message": {"type": "user", "content": 3}}')
    path.write_text("\n".join(lines) + "\n" + lines[8][:40])  # and a torn last line
    fast = transcript.load_transcript(path)
    monkeypatch.setattr(transcript, "is_message_line", lambda line: False)  # every line the slow way
    slow = transcript.load_transcript(path)
    assert fast.messages == slow.messages and fast.entries == slow.entries and fast.warnings == slow.warnings
    assert fast.message_lines == slow.message_lines == _counted_lines_of(lines)
    assert len(fast.warnings) == 3


def _counted_lines_of(lines: list[str]) -> int:
    count = 0
    for line in lines:
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            continue
        if entry["kind"] == "message" and entry["message"]["type"] in ("user", "assistant") and isinstance(entry["message"]["content"], (str, list)):
            count += 1
    return count
