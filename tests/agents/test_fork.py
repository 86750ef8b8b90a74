"""Fork subagents (seed 003 §3.7): an Agent call without subagent_type forks the main agent,
whose requests the fork's first request extends, so it reads the parent's prompt cache."""

from __future__ import annotations

import copy

from nb_agent.agents.fork import FORK_ENV, FORK_PLACEHOLDER
from nb_agent.testing import Reply, text, tool_use
from nb_agent.testing.collect import assert_history_invariant, collect
from nb_agent.testing.tools import RecordingTool
from nb_agent.tools.interaction import interaction_tools


def _fork(tag: str, id: str):
    return tool_use("Agent", {"description": f"part {tag}", "prompt": f"[{tag}] look at part {tag}"}, id=id)


def _plain(messages):
    """Messages without cache_control (where breakpoints sit differs between requests)."""
    out = copy.deepcopy(messages)
    for message in out:
        if isinstance(message["content"], list):
            message["content"] = [{k: v for k, v in b.items() if k != "cache_control"} for b in message["content"]]
    return out


def _routes(n: int = 3):
    forks = [_fork(f"f{i}", f"toolu_f{i}") for i in range(n)]
    routes = {"": [Reply(content=[tool_use("Echo", {"value": "warm up"}, id="toolu_w")]), Reply(content=[text("Splitting the work."), *forks]), Reply(content=[text("all parts done")])]}
    for i in range(n):
        routes[f"[f{i}]"] = [Reply(content=[tool_use("Echo", {"value": f"f{i}"}, id=f"toolu_e{i}")]), Reply(content=[text(f"part f{i}: fine")])]
    return routes


async def test_a_forks_first_request_extends_the_parents_last_one(make_agent_engine) -> None:
    engine, script = make_agent_engine(_routes(), tools=[RecordingTool("Echo")])
    out = await collect(engine, "check every part")
    assert out.result.subtype == "success" and out.result.text == "all parts done"
    parent = script.requests_by_route[""][1]  # the request whose answer called Agent
    for i in range(3):
        first = script.requests_by_route[f"[f{i}]"][0]
        assert first["system"] == parent["system"] and first["tools"] == parent["tools"] and first["model"] == parent["model"]
        prefix = len(parent["messages"])
        assert _plain(first["messages"][:prefix]) == _plain(parent["messages"]), "the parent's request, message for message"
        assistant, task = first["messages"][prefix:]
        assert assistant["role"] == "assistant" and any(b.get("id") == f"toolu_f{i}" for b in assistant["content"])
        answers = [b for b in task["content"] if b["type"] == "tool_result"]
        assert [b["tool_use_id"] for b in answers] == [b["id"] for b in assistant["content"] if b["type"] == "tool_use"]
        assert {b["content"] for b in answers} == {FORK_PLACEHOLDER}
        assert task["content"][-1]["text"].endswith(f"Your task:\n[f{i}] look at part f{i}")
    results = {r["tool_use_id"]: r["content"] for r in out.tool_results}
    assert all(results[f"toolu_f{i}"].startswith(f"part f{i}: fine") for i in range(3))
    assert_history_invariant(engine.messages)


async def test_a_fork_cannot_fork_again_or_use_the_main_agents_tools(make_agent_engine) -> None:
    question = {"questions": [{"question": "Which?", "header": "Pick", "options": [{"label": "A", "description": "a"}, {"label": "B", "description": "b"}], "multiSelect": False}]}
    routes = {
        "": [Reply(content=[_fork("f0", "toolu_f0")]), Reply(content=[text("done")])],
        "[f0]": [
            Reply(content=[_fork("again", "toolu_again"), tool_use("EnterPlanMode", {}, id="toolu_plan"), tool_use("AskUserQuestion", question, id="toolu_ask")]),
            Reply(content=[text("could not")]),
        ],
    }
    tools = [RecordingTool("Echo"), *interaction_tools()]  # EnterPlanMode and AskUserQuestion among them
    engine, script = make_agent_engine(routes, tools=tools, permission_mode="acceptEdits")
    await collect(engine, "go")
    fork_second = script.requests_by_route["[f0]"][1]
    results = {b["tool_use_id"]: b for b in fork_second["messages"][-1]["content"] if b.get("type") == "tool_result"}
    assert "Only the main agent can fork itself" in results["toolu_again"]["content"]
    assert "belongs to the main agent; a fork cannot use it" in results["toolu_plan"]["content"]
    assert "belongs to the main agent; a fork cannot use it" in results["toolu_ask"]["content"]
    assert engine.config.permission_mode == "acceptEdits", "the fork did not switch the session's mode"
    assert "[again]" not in script.requests_by_route


async def test_forking_off_starts_a_general_purpose_agent(make_agent_engine, monkeypatch) -> None:
    monkeypatch.setenv(FORK_ENV, "0")
    routes = {"": [Reply(content=[_fork("f0", "toolu_f0")]), Reply(content=[text("done")])], "[f0]": [Reply(content=[text("fresh")])]}
    engine, script = make_agent_engine(routes, tools=[RecordingTool("Echo")])
    await collect(engine, "go")
    [first] = script.requests_by_route["[f0]"]
    assert len(first["messages"]) == 1, "a fresh agent: its prompt alone"
    assert first["system"] != script.requests_by_route[""][0]["system"]
