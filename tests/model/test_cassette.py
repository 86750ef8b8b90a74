"""Record through the real SDK against the fake server, then replay offline."""

from __future__ import annotations

from pathlib import Path

import pytest

from nb_agent.engine import EngineConfig, QueryEngine
from nb_agent.model.cassette import CassetteMismatchError, CassetteTransport, Normalizer
from nb_agent.model.transport import AnthropicTransport
from nb_agent.testing import FakeAnthropicServer, Reply, text, tool_use
from nb_agent.testing.collect import collect
from nb_agent.testing.tools import RecordingTool


def _turns() -> list[Reply]:
    return [Reply(content=[text("Echoing."), tool_use("Echo", {"value": "x"})]), Reply(content=[text("All done.")])]


async def _record(tmp_path: Path, cassette: Path) -> None:
    async with FakeAnthropicServer(_turns()) as server:
        transport = CassetteTransport(
            cassette, mode="record", inner=AnthropicTransport(client=server.client()), normalizer=Normalizer(cwd=tmp_path)
        )
        engine = QueryEngine(config=EngineConfig(cwd=tmp_path), tools=[RecordingTool("Echo")], transport=transport)
        out = await collect(engine, "echo x")
        assert out.result.subtype == "success"


async def test_replay_gives_the_same_run_without_a_server(tmp_path: Path) -> None:
    cassette = tmp_path / "run.json"
    await _record(tmp_path, cassette)
    replay = CassetteTransport(cassette, mode="replay", normalizer=Normalizer(cwd=tmp_path))
    echo = RecordingTool("Echo")
    engine = QueryEngine(config=EngineConfig(cwd=tmp_path), tools=[echo], transport=replay)
    out = await collect(engine, "echo x")
    assert out.result.subtype == "success"
    assert out.result.text == "All done."
    assert [c.value for c in echo.calls] == ["x"]
    replay.assert_used_up()


async def test_a_diverged_conversation_fails_with_a_diff(tmp_path: Path) -> None:
    cassette = tmp_path / "run.json"
    await _record(tmp_path, cassette)
    replay = CassetteTransport(cassette, mode="replay", normalizer=Normalizer(cwd=tmp_path))
    engine = QueryEngine(config=EngineConfig(cwd=tmp_path), tools=[RecordingTool("Echo")], transport=replay)
    out = await collect(engine, "echo something else")
    assert out.result.is_error
    assert "diverged" in (out.result.error or "")
    with pytest.raises(CassetteMismatchError, match="recorded request"):
        replay2 = CassetteTransport(cassette, mode="replay", normalizer=Normalizer(cwd=tmp_path))
        async for _ in replay2.stream({"messages": [{"role": "user", "content": "other"}], "tools": []}):
            pass


def test_auto_mode_replays_without_a_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from nb_agent.model.cassette import cassette_from_env

    cassette = tmp_path / "c.json"
    cassette.write_text('{"version": 1, "interactions": []}')
    monkeypatch.setenv("NB_AGENT_CASSETTE", str(cassette))
    transport = cassette_from_env(has_api_key=False, live_factory=lambda: None)
    assert isinstance(transport, CassetteTransport) and transport.mode == "replay"
