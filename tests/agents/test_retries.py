"""Audit defect 1: a subagent's model calls are foreground calls: a 529 is retried (seed 002
§10.2 lists agent:builtin, agent:default and agent:custom), not fatal at once."""

from __future__ import annotations

import pytest

from nb_agent.engine import EngineConfig, EngineOptions
from nb_agent.model.retry import RetryPolicy
from nb_agent.testing import Reply, overloaded_error, text, tool_use
from nb_agent.testing.collect import collect
from nb_agent.testing.retry import RetryRecorder


@pytest.mark.parametrize("agent_type", ["general-purpose", "Explore", "date-checker"])
async def test_a_subagent_retries_an_overload(make_agent_engine, project, agent_type) -> None:
    agents = project / ".claude" / "agents"
    agents.mkdir(parents=True)
    (agents / "date-checker.md").write_text("---\nname: date-checker\ndescription: checks dates\n---\nCheck dates.\n")
    recorder = RetryRecorder()
    config = EngineConfig(cwd=project, model="claude-sonnet-4-6", options=EngineOptions(retry_policy=RetryPolicy(sleep=recorder, random=lambda: 0.0)))
    call = tool_use("Agent", {"description": "look", "prompt": "[sub] look around", "subagent_type": agent_type}, id="toolu_agent")
    engine, script = make_agent_engine(
        {"": [Reply(content=[call]), Reply(content=[text("all good")])], "[sub]": [overloaded_error(), Reply(content=[text("found it")])]},
        config=config,
    )
    out = await collect(engine, "go")
    [result] = out.tool_results
    assert not result.get("is_error"), result["content"]
    assert result["content"].startswith("found it")
    assert recorder.delays == [0.5], "one backoff, then the retried request succeeded"
