"""What a run gives a tool, and what a session owns for its tools: two typed records.

:class:`ToolServices` (``ToolUseContext.services``) is what the engine offers a tool call
beyond the context: a side model call, switching the permission mode, the provider, the
Read scope, the Bash sandbox and the like. :class:`SessionResources`
(``ToolSession.resources``) is what outlives one call and every agent of the session
shares: background shells, the subagent host, the page cache, the todo lists, the locks
of shared resources. A tool finds what it may use by reading a field, as pydantic-ai's
``RunContext`` carries typed dependencies; no engine import is needed, and a test passes
its own.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from nb_agent.errors import ToolError

if TYPE_CHECKING:
    from nb_agent.agents.host import SubagentHost
    from nb_agent.model.providers import Provider
    from nb_agent.permissions.fast_path import ReadScope
    from nb_agent.permissions.restriction import ToolRestriction
    from nb_agent.permissions.types import PermissionMode
    from nb_agent.tools.base import ToolUseContext
    from nb_agent.tools.bash.background import BackgroundShells
    from nb_agent.tools.bash.sandbox.runtime import SandboxRuntime
    from nb_agent.tools.interaction.todos import TodoItem
    from nb_agent.tools.web.cache import TtlCache

SideQuery = Callable[..., Awaitable[Any]]
"""``async (request: dict, *, query_source: str) -> anthropic Message``: one non-streaming
Messages API call made for a tool (retried, its usage counted in the session's cost)."""
TimeoutAction = Literal["background", "kill"]


@dataclass(frozen=True, kw_only=True)
class ToolServices:
    """What a run gives its tool calls (the engine fills it per submission)."""

    side_query: SideQuery | None = None
    set_permission_mode: Callable[[PermissionMode], None] | None = None
    """Switch the session's permission mode (plan approval, EnterPlanMode)."""
    provider: Provider | None = None
    """The session's provider (``%agent provider`` or the environment): what a tool's side
    call may ask of it (WebSearch's server tool). None: the environment's."""
    read_scope: Callable[[ToolUseContext], ReadScope] | None = None
    """The permission policy's Read scope: what Grep and Glob must leave out."""
    tool_references: bool = False
    """ToolSearch answers with ``tool_reference`` blocks."""
    sandbox: SandboxRuntime | None = None
    """The session's Bash sandbox (None: Bash makes one from the defaults)."""
    bash_timeout_action: TimeoutAction = "background"
    """What a foreground Bash timeout does: move the command to the background, or kill it."""
    transcript_path: str = ""
    """The session's transcript (what hooks are told; a subagent's is the session's too)."""
    agent_id: str | None = None
    """A subagent's id (None in the main conversation): state a tool keeps per agent, such as
    TodoWrite's list, is kept under it, since a subagent shares its parent's resources."""
    agent_permission_mode: Callable[[], PermissionMode] | None = None
    """A subagent's own permission mode, looked up at each decision (None: the session's)."""
    active_skill: ToolRestriction | None = None
    """The ``allowed-tools`` of the skill or command now running: calls outside it ask."""


@dataclass(kw_only=True)
class SessionResources:
    """What the agents of one session share; a subagent's tool session holds the same object."""

    subagents: SubagentHost | None = None
    """Starts and tracks subagents (the Agent tool, ``%agent tasks``)."""
    background_shells: BackgroundShells | None = None
    sandbox: SandboxRuntime | None = None
    """The sandbox Bash made when the run gave none (kept, so its set-up is paid once)."""
    web_cache: TtlCache[Any] | None = None
    """WebFetch's pages."""
    todos: dict[str | None, list[TodoItem]] = field(default_factory=dict)
    """TodoWrite's lists: the main conversation's under None, a subagent's under its id."""
    resource_locks: dict[str, asyncio.Lock] = field(default_factory=dict)
    """One lock per shared resource (``Tool.shared_resource``): calls naming it run one at a time."""
    kernel: object | None = None
    """The Jupyter kernel bridge when the session runs in a kernel (for tools other than
    nb_agent's own, which are given it when they are made)."""


def side_query(ctx: ToolUseContext) -> SideQuery:
    """The session's side call; a ``ToolError`` when the tool runs outside an engine."""
    query = ctx.services.side_query
    if query is None:
        raise ToolError("This tool needs a model call, and no model is connected to this session.")
    return query
