"""Where requests carry cache breakpoints, and what that does against the simulated cache."""

from __future__ import annotations

from pathlib import Path

import pytest

from nb_agent.engine import EngineConfig, EngineOptions, QueryEngine
from nb_agent.model.prompt_cache import breakpoint_positions, count_breakpoints, with_message_breakpoints
from nb_agent.model.transport import AnthropicTransport
from nb_agent.testing import FakeAnthropicServer, Reply, ScriptedTransport, text, tool_use
from nb_agent.testing.collect import collect
from nb_agent.testing.tools import RecordingTool


def _user(content) -> dict:
    return {"role": "user", "content": content}


def _assistant(*blocks) -> dict:
    return {"role": "assistant", "content": list(blocks)}


def _marks(messages: list[dict]) -> list[int]:
    return [i for i, m in enumerate(messages) if isinstance(m["content"], list) and any("cache_control" in b for b in m["content"])]


def test_positions_are_the_previous_requests_end_and_the_last_message():
    history = [_user("q"), _assistant({"type": "tool_use", "id": "t", "name": "X", "input": {}}), _user([{"type": "tool_result", "tool_use_id": "t", "content": "r"}])]
    assert breakpoint_positions(history) == [0, 2]
    assert breakpoint_positions(history[:1]) == [0]
    assert breakpoint_positions([]) == []


def test_marking_copies_and_skips_thinking_and_empty_text():
    thinking = {"type": "thinking", "thinking": "hm", "signature": "s"}
    history = [_user("first"), _assistant(thinking, {"type": "text", "text": "a"}), _user([{"type": "text", "text": "x"}, {"type": "text", "text": ""}])]
    marked = with_message_breakpoints(history)
    assert marked[0]["content"] == [{"type": "text", "text": "first", "cache_control": {"type": "ephemeral"}}]
    assert marked[2]["content"][0]["cache_control"] == {"type": "ephemeral"} and "cache_control" not in marked[2]["content"][1]
    assert history[0]["content"] == "first" and "cache_control" not in history[2]["content"][0]  # the history is untouched
    assert with_message_breakpoints(history, budget=1) == [history[0], history[1], marked[2]]


def _engine(tmp_path: Path, transport, **options) -> QueryEngine:
    config = EngineConfig(cwd=tmp_path, model="claude-sonnet-4-6", options=EngineOptions(**options))
    return QueryEngine(config=config, transport=transport, tools=[RecordingTool("Echo")])


def _turns() -> list[Reply]:
    parallel = [tool_use("Echo", {"value": str(i)}, id=f"t{i}") for i in range(12)]  # 24 blocks: beyond the lookback
    return [Reply(content=[text("checking"), *parallel]), Reply(content=[tool_use("Echo", {"value": "x"}, id="u1")]), Reply(content=[text("done")])]


async def test_every_request_has_at_most_four_breakpoints_and_a_stable_prefix(tmp_path):
    transport = ScriptedTransport([*_turns(), Reply(content=[text("second cell")])])
    engine = _engine(tmp_path, transport)
    await collect(engine, "first")
    await collect(engine, "second")
    for request in transport.requests:
        assert 1 <= count_breakpoints(request) <= 4
        assert request["system"][0]["cache_control"] == {"type": "ephemeral"}
    second, third = transport.requests[1], transport.requests[2]
    assert _marks(second["messages"]) == [0, 2]
    assert _marks(third["messages"]) == [2, 4]
    # what request 2 sent is, markers aside, the start of request 3
    strip = lambda ms: [{**m, "content": [{k: v for k, v in b.items() if k != "cache_control"} for b in m["content"]]} if isinstance(m["content"], list) else m for m in ms]  # noqa: E731
    assert strip(third["messages"])[:3] == strip(second["messages"])


async def test_prompt_caching_off_removes_every_marker(tmp_path):
    transport = ScriptedTransport(_turns())
    await collect(_engine(tmp_path, transport, prompt_caching=False), "first")
    assert all(count_breakpoints(r) == 0 for r in transport.requests)


async def test_disable_prompt_caching_env(tmp_path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("DISABLE_PROMPT_CACHING", "1")
    transport = ScriptedTransport(_turns())
    await collect(_engine(tmp_path, transport), "first")
    assert all(count_breakpoints(r) == 0 for r in transport.requests)


async def test_each_request_reads_the_previous_one_from_the_simulated_cache(tmp_path):
    async with FakeAnthropicServer([*_turns(), Reply(content=[text("second cell")])], prompt_cache=True) as server:
        engine = _engine(tmp_path, AnthropicTransport(client=server.client()))
        first = await collect(engine, "first " + "context " * 1500)
        second = await collect(engine, "second")
    usage = (first.result.usage + second.result.usage)
    assert usage.cache_read_share > 0.6
    # the cost prices reads at a tenth and writes at 1.25x of Sonnet's $3 input
    expected = (usage.input_tokens * 3 + usage.cache_creation_input_tokens * 3.75 + usage.cache_read_input_tokens * 0.3 + usage.output_tokens * 15) / 1e6
    assert first.result.total_cost_usd + second.result.total_cost_usd == pytest.approx(expected)
    assert engine.usage.cost_usd == pytest.approx(expected)
