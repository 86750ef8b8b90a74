"""Memory in a running session: what the first request carries, what a read brings."""

from __future__ import annotations

import json
from pathlib import Path

from nb_agent.agent import create_engine
from nb_agent.engine import EngineConfig, EngineOptions
from nb_agent.model.retry import NO_RETRIES
from nb_agent.testing import Reply, ScriptedTransport, text, tool_use
from nb_agent.testing.collect import collect


def _engine(project: Path, home: Path, turns, **kw):
    transport = ScriptedTransport(turns)
    config = EngineConfig(cwd=project, model="claude-sonnet-4-6", options=EngineOptions(retry_policy=NO_RETRIES))
    engine, _ = create_engine(config=config, transport=transport, home=home, agents=False, mcp=False, **kw)
    return engine, transport


async def test_a_subfolders_memory_reaches_the_model_after_the_first_read_there_once(world) -> None:
    world.write("CLAUDE.md", "top: @docs/style.md")
    world.write("docs/style.md", "imported style")
    world.write("pkg/CLAUDE.md", "pkg conventions")
    world.write("pkg/a.py", "a = 1\n")
    world.write("pkg/b.py", "b = 2\n")
    turns = [
        Reply(content=[tool_use("Read", {"file_path": str(world.project / "pkg" / "a.py")}, id="r1")]),
        Reply(content=[tool_use("Read", {"file_path": str(world.project / "pkg" / "b.py")}, id="r2")]),
        Reply(content=[tool_use("Read", {"file_path": str(world.project / "pkg" / "missing.py")}, id="r3")]),
        Reply(content=[text("done")]),
    ]
    engine, transport = _engine(world.project, world.home, turns, trust=True)
    out = await collect(engine, "look at pkg")
    assert out.result.subtype == "success"
    first = json.dumps(transport.requests[0]["messages"])
    assert "top: @docs/style.md" in first and "imported style" in first and "pkg conventions" not in first
    second = json.dumps(transport.requests[1]["messages"])
    assert second.count("pkg conventions") == 1 and second.index("pkg conventions") > second.index('"r1"')
    last = json.dumps(transport.requests[-1]["messages"])
    assert last.count("pkg conventions") == 1, "once, not at every read there"
    [attachment] = [m for m in engine.messages if getattr(m, "kind", "") == "nested_memory"]
    assert attachment.content.startswith(f"Contents of {world.project / 'pkg' / 'CLAUDE.md'} (project instructions)")


async def test_a_failed_read_brings_nothing(world) -> None:
    world.write("pkg/CLAUDE.md", "pkg conventions")
    turns = [
        Reply(content=[tool_use("Read", {"file_path": str(world.project / "pkg" / "missing.py")}, id="r1")]),
        Reply(content=[text("done")]),
    ]
    engine, transport = _engine(world.project, world.home, turns)
    await collect(engine, "look")
    assert "pkg conventions" not in json.dumps(transport.requests[-1]["messages"])


async def test_imports_are_held_to_the_sessions_read_deny_rules(world) -> None:
    world.write("CLAUDE.md", "secrets: @.env")
    world.write(".env", "API_KEY=sk-live-123")
    engine, transport = _engine(world.project, world.home, [Reply(content=[text("ok")])], trust=True, deny=["Read(.env)"])
    await collect(engine, "hi")
    assert "sk-live-123" not in json.dumps(transport.requests)
    assert [s.reason for s in engine.session_context.memory.skipped] == ["the rule Read(.env) covers it"]
