"""Fork subagents (seed 003 §3.7): a subagent that starts from the main agent's context.

An ``Agent`` call without ``subagent_type`` forks the main agent: the fork's requests have
the parent's system blocks, the messages sent before its history, its tools (the same
objects, in the same order: ``useExactTools``) and its model, and the fork's history is the
parent's up to the assistant turn that called it, followed by one user message that
answers each of that turn's tool calls with the same placeholder and then gives the
fork its task. So the fork's first request is the parent's last one plus a few blocks: it
reads the parent's prompt cache, and its own requests build on that.

What a fork may not do is refused when it tries, not filtered out of its tools (that
would change the tool list and lose the cache): forking again, the plan-mode and
question tools (they belong to the main agent), and, for a background fork, anything a
background agent may not use.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from nb_agent.agents.definition import AgentDefinition
from nb_agent.agents.filtering import AGENT_TOOL_NAME, ALL_AGENT_DISALLOWED_TOOLS, ASYNC_AGENT_ALLOWED_TOOLS
from nb_agent.messages import ContentBlock
from nb_agent.permissions.types import PermissionDecision, PermissionDeny, PermissionPolicy

if TYPE_CHECKING:
    from nb_agent.agents.runner import SubagentRun
    from nb_agent.engine import QueryEngine
    from nb_agent.tools.base import Tool, ToolUseContext

__all__ = ["FORK", "FORK_ENV", "ForkPolicy", "fork_enabled", "fork_history", "fork_task"]

FORK_ENV = "NB_AGENT_FORK_SUBAGENTS"
"""``0`` turns forking off: an Agent call without ``subagent_type`` starts a general-purpose agent."""
FORK_PLACEHOLDER = "Fork started: it works on its own task in a separate context."
"""The same text answers every tool call of the turn in every fork: the forks' first
requests differ only in their task."""

FORK = AgentDefinition(
    name="fork",
    description="A fork of the main agent: its whole conversation, tools and model, and one task.",
    prompt="",
)


def fork_enabled() -> bool:
    return os.environ.get(FORK_ENV, "1").strip().lower() not in ("0", "false", "no", "off")


def fork_history(messages: list[Any], tool_use_id: str) -> tuple[list[Any], list[str]]:
    """The parent's history up to the assistant turn holding ``tool_use_id`` (what came after
    it, such as the turn's first tool results, is left out) and the ids of that turn's
    tool calls, which the fork's first message answers."""
    end = next((i for i, m in enumerate(messages) if m.type == "assistant" and any(b.get("id") == tool_use_id for b in m.tool_uses)), None)
    if end is None:
        raise ValueError(f"no assistant message holds the tool call {tool_use_id}")
    turn_id = messages[end].message_id
    start = next(i for i, m in enumerate(messages) if m.type == "assistant" and m.message_id == turn_id)
    # Results that came back while the turn streamed are not the fork's: it answers them all alike.
    turn = [m for m in messages[start : end + 1] if m.type == "assistant" and m.message_id == turn_id]
    return [*messages[:start], *turn], [b["id"] for m in turn for b in m.tool_uses]


def fork_task(tool_use_ids: list[str], prompt: str) -> list[ContentBlock]:
    """The fork's first message: the turn's tool calls answered alike, then its task."""
    answers: list[ContentBlock] = [{"type": "tool_result", "tool_use_id": i, "content": FORK_PLACEHOLDER} for i in tool_use_ids]
    directive = (
        "You are now a fork of the agent above: you have its whole conversation, and the task below is yours "
        "alone. Do it with your tools, without asking the user anything and without forking again. Finish with "
        "a concise report of what you did and found: it is all the main agent sees of your work.\n\n"
        f"Your task:\n{prompt}"
    )
    return [*answers, {"type": "text", "text": directive}]


class ForkPolicy(PermissionPolicy):
    """The session's policy, minus what a fork may not use (refused with why); everything
    else (rules, modes, the read scope) is the parent's."""

    def __init__(self, inner: PermissionPolicy, *, background: bool) -> None:
        self._inner = inner
        self._background = background

    def __getattr__(self, name: str) -> Any:  # the rule engine's other services (read_scope, mode, ...)
        return getattr(self._inner, name)

    def _refusal(self, tool: Tool[Any]) -> PermissionDeny | None:
        if tool.name in ALL_AGENT_DISALLOWED_TOOLS and tool.name != AGENT_TOOL_NAME:
            return PermissionDeny(message=f"{tool.name} belongs to the main agent; a fork cannot use it.")
        if self._background and not tool.is_mcp and (tool.requires_user_interaction or tool.name not in ASYNC_AGENT_ALLOWED_TOOLS):
            return PermissionDeny(message=f"{tool.name} is not available to a fork working in the background.")
        return None

    async def deny_rule_decision(self, tool: Tool[Any], input: Any, ctx: ToolUseContext) -> PermissionDecision | None:
        return self._refusal(tool) or await self._inner.deny_rule_decision(tool, input, ctx)

    async def decide(self, tool: Tool[Any], input: Any, ctx: ToolUseContext) -> PermissionDecision:
        return self._refusal(tool) or await self._inner.decide(tool, input, ctx)

    def add_session_rule(self, behavior: Any, rule: str) -> None:
        self._inner.add_session_rule(behavior, rule)


def make_fork(parent: QueryEngine, run: SubagentRun, build: Any) -> QueryEngine:
    """The fork's engine: ``build`` (the runner's child builder) with the parent's tools, request
    shape, context decisions and history; its first message comes from :func:`fork_task`."""
    if parent.request_shape is None:
        raise ValueError("the main agent has not sent a request yet: nothing to fork")
    child = build(parent, run, list(parent.tools))
    child.tools = list(parent.tools)  # the parent's list as it is (a pool would sort and filter it)
    child.tool_pool = None
    child.inherited_shape = parent.request_shape
    child.context_manager.inherit(parent.context_manager)
    child.permission_policy = ForkPolicy(parent.permission_policy, background=run.background)
    history, _ = fork_history(parent.messages, run.parent_tool_use_id)
    child.messages = history
    return child
