"""What the engine offers tools beyond the context: a side model call and switching the
session's permission mode. Both are passed in ``ToolUseContext.options`` under these
keys, so a tool needs no engine import and a test can pass its own."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from nb_agent.errors import ToolError
from nb_agent.tools.base import ToolUseContext

SIDE_QUERY_OPTION = "side_query"
"""``async (request: dict, *, query_source: str) -> anthropic Message``: one non-streaming
Messages API call made for a tool (retried, its usage counted in the session's cost)."""
SET_MODE_OPTION = "set_permission_mode"
"""``(mode) -> None``: switch the session's permission mode."""

PROVIDER_OPTION = "provider"
"""The session's :class:`~nb_agent.model.providers.Provider` (``%agent provider`` or the
environment): what a tool's side call may ask of it (WebSearch's server tool)."""
AGENT_ID_OPTION = "agent_id"
"""A subagent's id (absent in the main conversation): state a tool keeps per agent, such as
TodoWrite's list, is kept under it, since a subagent shares its parent's ``ToolSession.extra``."""

SideQuery = Callable[..., Awaitable[Any]]


def side_query(ctx: ToolUseContext) -> SideQuery:
    """The session's side call; a ``ToolError`` when the tool runs outside an engine."""
    query = ctx.options.get(SIDE_QUERY_OPTION)
    if query is None:
        raise ToolError("This tool needs a model call, and no model is connected to this session.")
    return query
