"""The three layers that decide a subagent's tools (seed 003 §3.7)."""

from __future__ import annotations

from typing import Any

import pytest

from nb_agent.agents import AgentCatalog, AgentDefinition, AgentTool
from nb_agent.agents.definition import BUILT_IN_AGENTS
from nb_agent.agents.filtering import (
    ALL_AGENT_DISALLOWED_TOOLS,
    ASYNC_AGENT_ALLOWED_TOOLS,
    filter_tools_for_agent,
    resolve_agent_tools,
)
from nb_agent.testing.tools import RecordingTool


class McpTool(RecordingTool):
    is_mcp = True


class UiTool(RecordingTool):
    requires_user_interaction = True


def pool() -> list[Any]:
    names = ["Bash", "Read", "Write", "Edit", "Glob", "Grep", "NotebookEdit", "ExecuteCode", "InspectVariables",
             "ToolSearch", "ExitPlanMode", "EnterPlanMode", "TaskStop", "TaskOutput"]  # fmt: skip
    tools: list[Any] = [RecordingTool(n) for n in names]
    tools += [AgentTool(AgentCatalog()), UiTool("AskUserQuestion"), UiTool("PickColour"), McpTool("mcp__db__query")]
    return tools


def names(tools) -> set[str]:
    return {t.name for t in tools}


def definition(**kw: Any) -> AgentDefinition:
    return AgentDefinition(name="custom", description="d", prompt="p", source="project", **kw)


# --- layer 1 -----------------------------------------------------------------------------


def test_layer1_removes_recursion_plan_mode_and_task_tools_but_keeps_mcp():
    kept = names(filter_tools_for_agent(pool(), is_background=False))
    assert not kept & ALL_AGENT_DISALLOWED_TOOLS
    assert {"Agent", "ExitPlanMode", "EnterPlanMode", "TaskStop", "TaskOutput", "AskUserQuestion"}.isdisjoint(kept)
    assert {"mcp__db__query", "Bash", "ExecuteCode", "PickColour"} <= kept


def test_layer1_keeps_agent_only_when_allowed():
    assert "Agent" in names(filter_tools_for_agent(pool(), is_background=False, allow_agent=True))


def test_layer1_background_drops_tools_that_need_the_user():
    kept = names(filter_tools_for_agent(pool(), is_background=True))
    assert "PickColour" not in kept and "AskUserQuestion" not in kept


def test_mcp_tools_pass_even_with_a_disallowed_name():
    sneaky = McpTool("Agent")
    assert sneaky in filter_tools_for_agent([sneaky], is_background=True)


# --- layer 2 -----------------------------------------------------------------------------


def test_layer2_background_allow_list():
    kept = names(filter_tools_for_agent(pool(), is_background=True))
    assert kept - {"mcp__db__query"} <= ASYNC_AGENT_ALLOWED_TOOLS
    assert "ExecuteCode" not in kept, "kernel code from the background would interleave with the user's cells"
    assert {"Read", "Grep", "Bash", "NotebookEdit", "mcp__db__query"} <= kept


def test_foreground_is_not_limited_by_the_allow_list():
    assert "ExecuteCode" in names(filter_tools_for_agent(pool(), is_background=False))


# --- layer 3 -----------------------------------------------------------------------------


def test_layer3_tools_allow_list_and_invalid_specs():
    resolved = resolve_agent_tools(definition(tools=("Read", "Grep", "Nonexistent")), pool(), is_background=False)
    assert names(resolved.tools) == {"Read", "Grep"}
    assert resolved.invalid_specs == ["Nonexistent"]


def test_layer3_disallowed_tools_apply_before_the_allow_list():
    resolved = resolve_agent_tools(definition(tools=("Read", "Bash"), disallowed_tools=("Bash",)), pool(), is_background=False)
    assert names(resolved.tools) == {"Read"}
    assert resolved.invalid_specs == ["Bash"]


def test_layer3_cannot_bring_back_a_layer1_tool():
    resolved = resolve_agent_tools(definition(tools=("ExitPlanMode", "Read")), pool(), is_background=False)
    assert names(resolved.tools) == {"Read"}


def test_layer3_cannot_bring_back_a_layer2_tool_in_the_background():
    resolved = resolve_agent_tools(definition(tools=("ExecuteCode", "Read")), pool(), is_background=True)
    assert names(resolved.tools) == {"Read"}


def test_agent_form_allows_recursion_for_named_types_only():
    resolved = resolve_agent_tools(definition(tools=("Read", "Agent(explore, plan)")), pool(), is_background=False)
    assert names(resolved.tools) == {"Read", "Agent"}
    assert resolved.allowed_agent_types == ("explore", "plan")


def test_plain_agent_spec_allows_every_type():
    resolved = resolve_agent_tools(definition(tools=("Agent",)), pool(), is_background=False)
    assert names(resolved.tools) == {"Agent"} and resolved.allowed_agent_types is None


def test_task_alias_counts_as_agent():
    resolved = resolve_agent_tools(definition(tools=("Task(Explore)",)), pool(), is_background=False)
    assert names(resolved.tools) == {"Agent"} and resolved.allowed_agent_types == ("Explore",)


@pytest.mark.parametrize("name", ["Explore", "Plan"])
def test_read_only_built_ins(name):
    agent = next(d for d in BUILT_IN_AGENTS if d.name == name)
    kept = names(resolve_agent_tools(agent, pool(), is_background=False).tools)
    assert {"Edit", "Write", "NotebookEdit", "ExecuteCode", "Agent"}.isdisjoint(kept)
    assert {"Read", "Glob", "Grep", "Bash", "InspectVariables"} <= kept
    assert agent.permission_mode == "plan", "Bash must run read-only commands only"


def test_general_purpose_gets_everything_after_layer1():
    agent = next(d for d in BUILT_IN_AGENTS if d.name == "general-purpose")
    kept = names(resolve_agent_tools(agent, pool(), is_background=False).tools)
    assert kept == names(filter_tools_for_agent(pool(), is_background=False))
    assert "Agent" not in kept, "no recursion by default"


def test_restricted_agent_tool_offers_only_its_types():
    tool = AgentTool(AgentCatalog()).restricted_to(("explore",))
    text = tool.prompt()
    assert "- Explore:" in text and "- Plan:" not in text and "- general-purpose:" not in text
