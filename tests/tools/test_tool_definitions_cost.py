"""A request's ``tools`` cost what the request carries, not what the catalog holds:
definitions memoised per tool, deferral worked out once per pool, discoveries read from the
new messages only, and only the deferred tools ToolSearch found sent (``defer_loading``)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from nb_agent.messages import AssistantMessage, CompactBoundaryMessage, UserMessage, tool_result_message
from nb_agent.testing.tools import RecordingTool
from nb_agent.tools import tool_search
from nb_agent.tools.tool_pool import ToolPoolProvider
from nb_agent.tools.tool_search import (
    DiscoveredTools,
    ToolSearchOutput,
    discovered_tool_names,
    discovered_tools_attachment,
)
from tests.tools.test_tool_search import pool, search_turn


class CountingTool(RecordingTool):
    """Counts how often its schema is built; its description can change."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.schemas = 0
        self.description = "first"

    def input_json_schema(self) -> dict[str, Any]:
        self.schemas += 1
        return super().input_json_schema()

    def prompt(self) -> str:
        return self.description


def test_a_definition_is_built_once_and_again_only_when_its_description_changes():
    tool = CountingTool("Probe")
    first = tool.to_api_definition()
    assert tool.to_api_definition() is first and tool.schemas == 1
    tool.description = "second"
    second = tool.to_api_definition()
    assert second is not first and second["description"] == "second" and tool.schemas == 1
    deferred = tool.deferred_definition()
    assert deferred == {**second, "defer_loading": True} and tool.deferred_definition() is deferred


def _select(tool_use_id: str, *names: str) -> list[Any]:
    return search_turn(tool_use_id, ToolSearchOutput(query="select:" + ",".join(names), matches=list(names)))


def test_only_the_deferred_tools_found_are_sent_in_pool_order():
    tools = pool()
    provider = ToolPoolProvider(builtins=[], mode="on", tool_references=True)
    window: list[Any] = [UserMessage(content="hi")]
    first = provider.tool_definitions(tools, window)
    assert [d["name"] for d in first] == ["Bash", "Read", "ToolSearch"] and not any("defer_loading" in d for d in first)
    window = [*window, *_select("t1", "mcp__slack__slack_post_message", "AskUserQuestion")]
    later = provider.tool_definitions(tools, window)
    assert [d["name"] for d in later] == ["AskUserQuestion", "Bash", "Read", "ToolSearch", "mcp__slack__slack_post_message"]
    assert [d["name"] for d in later if d.get("defer_loading")] == ["AskUserQuestion", "mcp__slack__slack_post_message"]
    assert [d for d in later if not d.get("defer_loading")] == first  # what the cached prefix holds is unchanged
    text = ToolPoolProvider(builtins=[], mode="on", tool_references=False).tool_definitions(tools, window)
    assert [d["name"] for d in text] == [d["name"] for d in later] and not any("defer_loading" in d for d in text)


def test_deferral_is_worked_out_once_per_pool(monkeypatch: pytest.MonkeyPatch):
    calls = []
    real = tool_search.deferred_tools
    monkeypatch.setattr("nb_agent.tools.tool_pool.deferred_tools", lambda *a, **k: calls.append(1) or real(*a, **k))
    tools = pool()
    provider = ToolPoolProvider(builtins=[], mode="auto", context_window=1_000)
    window: list[Any] = [UserMessage(content="hi")]
    for n in range(10):
        window = [*window, *_select(f"t{n}", "mcp__git__git_log")]
        provider.tool_definitions(tools, window)
        provider.system_sections(list(tools))  # an equal pool in a new list is the same pool
    assert len(calls) == 1
    provider.tool_definitions(tools[:-1], window)
    assert len(calls) == 2


@pytest.mark.parametrize("padding", [0, 50, 2_000])
def test_the_auto_threshold_stops_reading_once_reached_and_decides_as_the_whole_estimate(padding: int):
    candidates = [t for t in pool(padding=padding) if tool_search.is_deferrable(t)]
    total = tool_search.estimate_tools_tokens(candidates)
    for limit in (total - 1, total, total + 1, total / 2, 1):
        assert tool_search._tokens_reach(candidates, limit) == (total >= limit)


def _random_history(rng: random.Random, turns: int) -> list[Any]:
    history: list[Any] = [UserMessage(content="go")]
    names = ["mcp__git__git_log", "mcp__slack__slack_post_message", "AskUserQuestion", "mcp__time__get_current_time"]
    for n in range(turns):
        roll = rng.random()
        if roll < 0.3:
            turn = _select(f"s{n}", rng.choice(names))
            if rng.random() < 0.2:
                turn = [turn[1], turn[0]]  # the result before its call
            if rng.random() < 0.1:
                turn = [turn[0], tool_result_message(f"s{n}", "Error", is_error=True)]
            history += turn
        elif roll < 0.35:
            history.append(discovered_tools_attachment([rng.choice(names)]))
        else:
            use = {"type": "tool_use", "id": f"u{n}", "name": "Bash", "input": {}}
            history += [AssistantMessage(content=[use], message_id=f"m{n}", model="m"), tool_result_message(f"u{n}", "- mcp__fake__tool: no")]
    return history


@pytest.mark.parametrize("seed", range(20))
def test_discoveries_are_read_incrementally_and_found_as_a_whole_scan_finds_them(seed: int):
    rng = random.Random(seed)
    full = _random_history(rng, 60)
    index = DiscoveredTools()
    window: list[Any] = []
    for end in range(1, len(full) + 1, rng.randrange(1, 4)):
        if rng.random() < 0.1:  # a compaction: the window starts again from a boundary
            window = [CompactBoundaryMessage(summary="s"), *full[end - 2 : end]]
        else:
            window = [*window, *full[len(window) if window and window[0] is full[0] else end - 1 : end]]
        read_before = index.read
        assert index.names(window) == frozenset(discovered_tool_names(window))
        if window and window[0] is full[0] and index.read - read_before > 3:
            pytest.fail("a growing window was read again from its start")


async def test_a_discovery_keeps_the_prompt_cache(tmp_path, monkeypatch: pytest.MonkeyPatch):
    from nb_agent.engine import EngineConfig, QueryEngine
    from nb_agent.model.transport import AnthropicTransport
    from nb_agent.testing import FakeAnthropicServer, Reply, text, tool_use
    from nb_agent.testing.collect import collect

    monkeypatch.setenv("NB_AGENT_TOOL_SEARCH", "on")
    turns = [
        Reply(content=[text("Let me look for it. " * 400), tool_use("ToolSearch", {"query": "select:mcp__git__git_log"})]),
        Reply(content=[text("Found it.")]),
    ]
    async with FakeAnthropicServer(turns, prompt_cache=True) as server:
        engine = QueryEngine(
            config=EngineConfig(cwd=tmp_path, model="claude-sonnet-4-6"),
            transport=AnthropicTransport(client=server.client()),
            tool_pool=ToolPoolProvider(builtins=pool(padding=50), mode="on"),
        )
        out = await collect(engine, "show me the git log tool. " + "context " * 2_000)
        first, second = server.requests
    assert out.result.subtype == "success"
    assert not any(t.get("defer_loading") for t in first["tools"])
    assert [t["name"] for t in second["tools"] if t.get("defer_loading")] == ["mcp__git__git_log"]
    usage = out.result.usage
    assert usage.cache_read_input_tokens > 4_000  # the second request read the first one's prefix
