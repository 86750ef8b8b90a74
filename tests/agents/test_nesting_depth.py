"""Audit defect 4: a custom agent that lists ``Agent`` cannot nest without limit."""

from __future__ import annotations

from nb_agent.agents.host import MAX_SUBAGENT_DEPTH
from nb_agent.testing import Reply, text, tool_use
from nb_agent.testing.collect import collect


def _nest(level: int):
    return tool_use("Agent", {"description": f"level {level}", "prompt": f"[n{level}] go deeper", "subagent_type": "nester"}, id=f"toolu_n{level}")


async def test_nesting_stops_at_the_cap(make_agent_engine, project) -> None:
    agents = project / ".claude" / "agents"
    agents.mkdir(parents=True)
    (agents / "nester.md").write_text("---\nname: nester\ndescription: nests\ntools: Agent(nester), Echo\n---\nStart another nester.\n")
    routes = {"": [Reply(content=[_nest(1)]), Reply(content=[text("top done")])]}
    for level in range(1, 7):
        routes[f"[n{level}]"] = [Reply(content=[_nest(level + 1)]), Reply(content=[text(f"level {level} done")])]
    engine, script = make_agent_engine(routes)
    out = await collect(engine, "nest")
    assert out.result.subtype == "success"
    host = engine.tool_session.resources.subagents
    depths = sorted(run.depth for run in host.runs.values())
    assert depths == list(range(1, MAX_SUBAGENT_DEPTH + 1)), depths
    deepest = script.requests_by_route[f"[n{MAX_SUBAGENT_DEPTH}]"]
    assert "Agent" not in {t["name"] for t in deepest[0]["tools"]}, "the deepest agent is not offered the Agent tool"
    assert f"[n{MAX_SUBAGENT_DEPTH + 1}]" not in script.requests_by_route or not script.requests_by_route[f"[n{MAX_SUBAGENT_DEPTH + 1}]"]
