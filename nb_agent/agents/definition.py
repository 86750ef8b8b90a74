"""Agent definitions: the built-in types and the shape of a custom agent (seed 003 §3.7).

A definition says what a subagent is for (shown to the model), its system prompt, which
tools it may have (``tools`` / ``disallowed_tools``, with the ``Agent(explore, plan)``
form), its model (``inherit`` = the parent's), permission mode and turn limit.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from nb_agent.permissions.types import PermissionMode

AgentSource = Literal["built-in", "user", "project"]

GENERAL_PURPOSE = "general-purpose"
EXPLORE = "Explore"
PLAN = "Plan"

_READ_ONLY_DISALLOWED = ("Agent", "ExitPlanMode", "EnterPlanMode", "Edit", "Write", "NotebookEdit", "ExecuteCode", "ReproduceNotebook")
"""What the read-only types (Explore, Plan) do not get: tools that change files, the notebook or
the kernel, or run code (ReproduceNotebook runs every cell, for real, in a fresh kernel)."""


@dataclass(frozen=True, kw_only=True)
class AgentDefinition:
    """One agent type the ``Agent`` tool can start."""

    name: str
    description: str
    prompt: str
    tools: tuple[str, ...] | None = None
    """Allow-list of tool specs; None (or ``*``) means every tool that passes the filters."""
    disallowed_tools: tuple[str, ...] = ()
    model: str | None = None
    """A model name, ``inherit`` or None (both: the parent's model)."""
    permission_mode: PermissionMode | None = None
    mcp_servers: tuple[Any, ...] = ()
    """Server names of the session's ``.mcp.json``, or ``{name: config}`` started for this agent."""
    max_turns: int | None = None
    source: AgentSource = "built-in"
    path: Path | None = None
    omit_session_context: bool = False
    """Leave out CLAUDE.md and git status (Explore and Plan: their context is precious)."""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def is_built_in(self) -> bool:
        return self.source == "built-in"

    @property
    def query_source(self) -> str:
        """The query source of its model calls: one of the foreground sources whose 529s are
        retried (seed 002 §10.2), as Claude Code names them."""
        if not self.is_built_in:
            return "agent:custom"
        return "agent:default" if self.name == GENERAL_PURPOSE else "agent:builtin"

    def resolved_model(self, parent_model: str, requested: str | None = None) -> str:
        """The call's ``model`` wins, then the definition's; ``inherit`` means the parent's.
        Aliases (``haiku``) stay as written: the engine resolves them for its provider."""
        for choice in (requested, self.model):
            if choice and choice != "inherit":
                return choice
        return parent_model


_GENERAL_PROMPT = """\
You are an agent for nb_agent, working on a task the main agent gave you. Use the tools \
available to complete it fully; do not gold-plate, but do not leave it half done.

When you finish, reply with a concise report of what you did and what you found: it is \
the only thing the main agent sees of your work. Give absolute file paths and the key \
facts, not a narrative of every step."""

_EXPLORE_PROMPT = """\
You are a file and data exploration agent for nb_agent. You search and read, and you \
never change anything: you have no tools that write files or run code in the user's \
kernel, and Bash runs read-only commands only.

Work fast: run independent searches and reads in parallel (several tool calls in one \
response). Use Glob for file names, Grep for contents, Read for files you know, \
InspectVariables for the user's variables.

Finish with a concise report for the main agent: the answer to the question, the \
absolute paths that matter and the facts you found. It is the only thing the main agent \
sees of your work."""

_PLAN_PROMPT = """\
You are a planning agent for nb_agent. You read and search to understand the task, then \
design how to carry it out; you never change anything (read-only tools only).

Finish with a step-by-step plan: the files and functions involved (absolute paths), the \
order of the changes, the risks and how to check the result. It is the only thing the \
main agent sees of your work."""


BUILT_IN_AGENTS: tuple[AgentDefinition, ...] = (
    AgentDefinition(
        name=GENERAL_PURPOSE,
        description=(
            "General-purpose agent for researching complex questions, searching for code or data, "
            "and executing multi-step tasks. Use it when a search may take several rounds."
        ),
        prompt=_GENERAL_PROMPT,
    ),
    AgentDefinition(
        name=EXPLORE,
        description=(
            "Fast read-only agent for exploring files and data: find files by pattern, search contents, "
            "read and summarize. It cannot change files or run code in the kernel."
        ),
        prompt=_EXPLORE_PROMPT,
        disallowed_tools=_READ_ONLY_DISALLOWED,
        permission_mode="plan",
        omit_session_context=True,
    ),
    AgentDefinition(
        name=PLAN,
        description="Read-only planning agent: investigates and returns a step-by-step plan for a task.",
        prompt=_PLAN_PROMPT,
        disallowed_tools=_READ_ONLY_DISALLOWED,
        permission_mode="plan",
        omit_session_context=True,
    ),
)
