"""Which tools a subagent gets: the seed's three layers (003 §3.7).

1. Tools no subagent gets: ``Agent`` (unless the definition names it), plan-mode and
   task-management tools, and, for a background agent, anything needing the user's UI.
   MCP tools always pass: the user configured them on purpose.
2. A background agent only gets the tools of an allow-list (a block-list could miss a
   tool that waits for a user nobody is watching).
3. The definition's ``disallowedTools``, then its ``tools`` allow-list, where
   ``Agent(explore, plan)`` allows the Agent tool for those types only.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from nb_agent.agents.definition import AgentDefinition
from nb_agent.tools.base import Tool

AGENT_TOOL_NAME = "Agent"

ALL_AGENT_DISALLOWED_TOOLS = frozenset(
    {AGENT_TOOL_NAME, "TaskOutput", "TaskStop", "ExitPlanMode", "EnterPlanMode", "AskUserQuestion"}
)
"""Layer 1: recursion, plan-mode state, background-task management and questions to the
user belong to the main agent."""

ASYNC_AGENT_ALLOWED_TOOLS = frozenset(
    {
        "Read", "Write", "Edit", "Glob", "Grep", "Bash", "BashOutput", "KillShell",
        "NotebookEdit", "InspectVariables", "WebFetch", "WebSearch", "ToolSearch", "Skill",
    }
)  # fmt: skip
"""Layer 2: what a background agent may use. ExecuteCode is not here: code run in the
kernel from the background would interleave with the cells the user runs meanwhile."""

_SPEC = re.compile(r"^\s*([^\s(]+)\s*(?:\((.*)\))?\s*$", re.DOTALL)


@dataclass(frozen=True, kw_only=True)
class ToolSpec:
    name: str
    content: str | None = None

    @classmethod
    def parse(cls, spec: str) -> ToolSpec:
        match = _SPEC.match(spec)
        if match is None:
            return cls(name=spec.strip())
        return cls(name=match.group(1), content=match.group(2))


@dataclass(frozen=True, kw_only=True)
class ResolvedTools:
    """The subagent's tools, the specs that named no available tool, and (when the
    definition allows ``Agent(a, b)``) the agent types its Agent tool may start."""

    tools: list[Tool[Any]]
    invalid_specs: list[str]
    allowed_agent_types: tuple[str, ...] | None = None


def _named(tool: Tool[Any], name: str) -> bool:
    return tool.name == name or name in tool.aliases


def _explicitly_allows_agent(definition: AgentDefinition) -> bool:
    return any(ToolSpec.parse(spec).name in (AGENT_TOOL_NAME, "Task") for spec in definition.tools or ())


def filter_tools_for_agent(
    tools: Sequence[Tool[Any]], *, is_background: bool, allow_agent: bool = False
) -> list[Tool[Any]]:
    """Layers 1 and 2."""
    kept: list[Tool[Any]] = []
    for tool in tools:
        if tool.is_mcp:
            kept.append(tool)
            continue
        if tool.name in ALL_AGENT_DISALLOWED_TOOLS and not (allow_agent and tool.name == AGENT_TOOL_NAME):
            continue
        if is_background and (tool.requires_user_interaction or tool.name not in ASYNC_AGENT_ALLOWED_TOOLS):
            continue
        kept.append(tool)
    return kept


def resolve_agent_tools(definition: AgentDefinition, tools: Sequence[Tool[Any]], *, is_background: bool) -> ResolvedTools:
    """All three layers for ``definition`` over the parent's whole pool."""
    allow_agent = _explicitly_allows_agent(definition)
    filtered = filter_tools_for_agent(tools, is_background=is_background, allow_agent=allow_agent)
    denied = {ToolSpec.parse(spec).name for spec in definition.disallowed_tools}
    filtered = [t for t in filtered if not any(_named(t, name) for name in denied)]
    if definition.tools is None:
        return ResolvedTools(tools=filtered, invalid_specs=[])
    chosen: list[Tool[Any]] = []
    invalid: list[str] = []
    agent_types: tuple[str, ...] | None = None
    for raw in definition.tools:
        spec = ToolSpec.parse(raw)
        match = next((t for t in filtered if _named(t, spec.name)), None)
        if match is None:
            invalid.append(raw)
            continue
        if match.name == AGENT_TOOL_NAME and spec.content is not None and spec.content.strip() not in ("", "*"):
            agent_types = tuple(t.strip() for t in spec.content.split(",") if t.strip())
        if match not in chosen:
            chosen.append(match)
    return ResolvedTools(tools=chosen, invalid_specs=invalid, allowed_agent_types=agent_types)
