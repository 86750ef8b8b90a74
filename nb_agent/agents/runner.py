"""Running one subagent: the same ``query()`` (through a child ``QueryEngine``) with its
own system prompt, tools, permission mode, model, transcript and abort controller.

Only the final message goes back to the parent, with the agent's token usage, tool count
and duration. Everything the subagent does is also handed to ``SubagentRun.listeners``
as it happens (the notebook draws the subagent's card from it).
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal

from nb_agent.abort import AbortController
from nb_agent.agents.definition import AgentDefinition
from nb_agent.agents.fork import fork_history, fork_task, make_fork
from nb_agent.agents.sidechain import SidechainTranscript, sidechain_path
from nb_agent.hooks.types import SubagentInfo
from nb_agent.messages import AssistantMessage
from nb_agent.model.pricing import Usage
from nb_agent.permissions.types import CanUseTool, PermissionDeny, PermissionMode, PermissionRequest
from nb_agent.tools.base import Tool
from nb_agent.tools.tool_pool import ToolPoolProvider
from nb_agent.tools.tool_search import DEFAULT_CONTEXT_WINDOW

if TYPE_CHECKING:
    from nb_agent.engine import EngineResult, QueryEngine

log = logging.getLogger(__name__)

RunStatus = Literal["running", "completed", "failed", "stopped"]
STOPPED_BY_USER = "Stopped by user"


def new_agent_id() -> str:
    return str(uuid.uuid4())


@dataclass(eq=False, kw_only=True)
class SubagentRun:
    """One subagent, live: what ``%agent tasks`` lists and the notebook's card shows."""

    agent_id: str = field(default_factory=new_agent_id)
    definition: AgentDefinition
    description: str
    prompt: str
    parent_tool_use_id: str
    background: bool = False
    model: str = ""
    depth: int = 1
    """1 for an agent the main agent started, 2 for one that agent started, and so on."""
    fork: bool = False
    """A fork of the main agent (:mod:`nb_agent.agents.fork`): its context, tools and cache."""
    abort: AbortController = field(default_factory=AbortController)
    status: RunStatus = "running"
    started_at: float = field(default_factory=time.monotonic)
    ended_at: float | None = None
    tool_uses: int = 0
    usage: Usage = field(default_factory=Usage)
    text: str = ""
    error: str | None = None
    transcript_path: Any = None
    own_servers: Any = None
    """The MCP manager of the servers the definition configures inline, while it runs."""
    task: asyncio.Task[Any] | None = None
    listeners: list[Callable[[Any], None]] = field(default_factory=list)
    """Called with each event of the subagent's run (then with this run, when it ends)."""

    @property
    def agent_type(self) -> str:
        return self.definition.name

    @property
    def label(self) -> str:
        """How approvals and lists name it: ``Explore agent “scan the CSVs”``."""
        return f"{self.agent_type} agent “{self.description}”"

    @property
    def finished(self) -> bool:
        return self.status != "running"

    def elapsed(self) -> float:
        end = self.ended_at if self.ended_at is not None else time.monotonic()
        return max(0.0, end - self.started_at)

    def emit(self, event: Any) -> None:
        for listener in list(self.listeners):
            try:
                listener(event)
            except Exception:  # a display glitch must not end the subagent
                log.debug("subagent listener failed", exc_info=True)


@dataclass(frozen=True, kw_only=True)
class SubagentOutcome:
    """The structured result of an Agent call (``tool_use_result``)."""

    agent_id: str
    agent_type: str
    description: str
    status: RunStatus | Literal["launched"]
    text: str
    tool_uses: int = 0
    total_tokens: int = 0
    duration_s: float = 0.0
    error: str | None = None
    background: bool = False

    @classmethod
    def of(cls, run: SubagentRun, *, status: RunStatus | Literal["launched"] | None = None) -> SubagentOutcome:
        return cls(
            agent_id=run.agent_id,
            agent_type=run.agent_type,
            description=run.description,
            status=status or run.status,
            text=run.text,
            tool_uses=run.tool_uses,
            total_tokens=run.usage.context_tokens + run.usage.output_tokens,
            duration_s=run.elapsed(),
            error=run.error,
            background=run.background,
        )

    def usage_line(self) -> str:
        return f"agentId: {self.agent_id}\n<usage>total_tokens: {self.total_tokens}\ntool_uses: {self.tool_uses}\nduration: {self.duration_s:.1f}s</usage>"


def background_denial(label: str) -> CanUseTool:
    """A background subagent cannot ask: its *ask* becomes a denial that says why."""

    async def deny(tool: Tool[Any], request: PermissionRequest, ctx: Any) -> PermissionDeny:
        return PermissionDeny(
            message=(
                f"Permission to use {request.tool_name} was not granted: the {label} runs in the background, "
                f"where nobody can approve a request ({request.message}). Finish without it, or report "
                "what needs permission so the main agent can do it."
            )
        )

    return deny


def naming_approver(inner: CanUseTool | None, label: str) -> CanUseTool | None:
    """The parent's approver, with each request naming the subagent that asks."""
    if inner is None:
        return None

    async def ask(tool: Tool[Any], request: PermissionRequest, ctx: Any) -> Any:
        return await inner(tool, replace(request, agent=label), ctx)

    return ask


_STRICTNESS: dict[str, int] = {"bypassPermissions": 0, "acceptEdits": 1, "default": 2, "plan": 3}


def agent_permission_mode(definition: AgentDefinition, policy: Any, session_mode: PermissionMode) -> PermissionMode:
    """The subagent's permission mode. A built-in's or a user agent's ``permissionMode``
    applies as written; a *project* agent (a file that came with the folder) may only make
    it stricter than the session's, never looser: a cloned repository must not be able to
    turn on ``bypassPermissions`` for itself."""
    current: PermissionMode = getattr(policy, "mode", None) or session_mode
    wanted = definition.permission_mode
    if wanted is None:
        return current
    if definition.source == "project" and _STRICTNESS[wanted] < _STRICTNESS[current]:
        return current
    return wanted


def build_child_engine(parent: QueryEngine, run: SubagentRun, tools: list[Tool[Any]]) -> QueryEngine:
    """A ``QueryEngine`` for ``run`` forked from the parent (:meth:`QueryEngine.fork`): the
    parent's transport, hooks, rules and shared tool resources; its own history, usage and
    sidechain transcript."""
    definition, pc = run.definition, parent.config
    mode = agent_permission_mode(definition, parent.permission_policy, pc.permission_mode)
    run.transcript_path = sidechain_path(parent.session_dir, run.agent_id)
    config = pc.for_subagent(
        SubagentInfo(agent_id=run.agent_id, agent_type=definition.name, agent_transcript_path=str(run.transcript_path)),
        model=run.model,
        permission_mode=mode,
        # Looked up at each decision, not frozen now: a background run outlives the cell whose
        # --permission-mode was in force when it started (that mode ends with the cell).
        live_permission_mode=lambda: agent_permission_mode(definition, parent.permission_policy, parent.config.permission_mode),
        max_turns=definition.max_turns,
        cwd=parent.tool_session.cwd,
        agent_prompt=definition.prompt,
        query_source=definition.query_source,
        omit_session_context=definition.omit_session_context,
    )
    pool = parent.tool_pool
    provider = ToolPoolProvider(
        builtins=tools,
        mode=pool.mode if pool is not None else "off",
        context_window=pool.context_window if pool is not None else DEFAULT_CONTEXT_WINDOW,
    )
    return parent.fork(
        config=config,
        tools=provider.assemble(),
        tool_pool=provider,
        can_use_tool=background_denial(run.label) if run.background else naming_approver(parent.can_use_tool, run.label),
        transcript=SidechainTranscript(
            run.transcript_path,
            session_id=parent.session_id,
            agent_id=run.agent_id,
            parent_tool_use_id=run.parent_tool_use_id,
            agent_type=definition.name,
        ),
    )


async def run_subagent(parent: QueryEngine, run: SubagentRun, tools: list[Tool[Any]]) -> SubagentOutcome:
    """Run ``run`` to its end; never raises for the subagent's own failures."""
    from nb_agent.engine import EngineResult

    parent.transcript.write_entry("subagent", **_link(run, "started"))
    result: EngineResult | None = None
    child: QueryEngine | None = None
    own_servers = None
    try:
        own_servers, server_tools = await start_agent_mcp_servers(run.definition, cwd=parent.tool_session.cwd)
        run.own_servers = own_servers
        message: Any = run.prompt
        if run.fork:
            child = make_fork(parent, run, build_child_engine)
            message = fork_task(fork_history(parent.messages, run.parent_tool_use_id)[1], run.prompt)
        else:
            child = build_child_engine(parent, run, [*tools, *server_tools])
        async for event in child.submit_message(message, abort_controller=run.abort):
            if isinstance(event, EngineResult):
                result = event
                continue
            if isinstance(event, AssistantMessage):
                run.tool_uses += len(event.tool_uses)
            run.emit(event)
    except asyncio.CancelledError:
        run.abort.abort(STOPPED_BY_USER)
        _finish(run, parent, child, result, cancelled=True)
        raise
    except Exception as exc:  # a broken subagent returns an error result, the parent goes on
        log.debug("subagent %s failed", run.agent_id, exc_info=True)
        run.error = f"{type(exc).__name__}: {exc}"
    finally:
        if own_servers is not None:  # the agent's own servers live as long as the agent
            await asyncio.shield(own_servers.aclose())
    _finish(run, parent, child, result)
    return SubagentOutcome.of(run)


async def start_agent_mcp_servers(definition: AgentDefinition, *, cwd: Any) -> tuple[Any, list[Tool[Any]]]:
    """Start the servers a definition configures inline (``mcpServers: [{name: config}]``)
    for this run only; returns their manager (None if there are none) and their tools.
    A server that fails to start leaves the agent without its tools, nothing more."""
    inline: dict[str, Any] = {}
    for entry in definition.mcp_servers:
        if isinstance(entry, dict):
            inline.update(entry)
    if not inline:
        return None, []
    from nb_agent.mcp.manager import McpManager
    from nb_agent.mcp.state import sdk_installed

    if not sdk_installed():  # the mcp extra is not installed
        log.warning("agent %s configures MCP servers, but the mcp package is not installed", definition.name)
        return None, []
    manager = McpManager(servers=inline, cwd=cwd)
    await manager.ensure_started()
    return manager, list(manager.tools())


def _finish(run: SubagentRun, parent: QueryEngine, child: Any, result: Any, *, cancelled: bool = False) -> None:
    if run.finished:
        return
    run.ended_at = time.monotonic()
    if child is not None:
        for model, usage in child.usage.by_model.items():
            parent.usage.absorb(model, usage)
            parent.transcript.write_entry("usage", model=model, usage=usage.__dict__, agent_id=run.agent_id)
            run.usage = run.usage + usage
        child.close()
    if result is not None:
        run.text = result.text
        if result.subtype == "interrupted" or run.abort.signal.aborted:
            run.status = "stopped"
            run.error = run.error or run.abort.signal.reason or STOPPED_BY_USER
        elif result.is_error:
            run.status = "failed"
            run.error = run.error or result.error or result.subtype
        else:
            run.status = "completed"
    else:
        run.status = "stopped" if cancelled or run.abort.signal.aborted else "failed"
        run.error = run.error or (STOPPED_BY_USER if run.status == "stopped" else "the subagent ended without a result")
    parent.transcript.write_entry("subagent", **_link(run, run.status))
    run.emit(run)


def _link(run: SubagentRun, status: str) -> dict[str, Any]:
    return {
        "agent_id": run.agent_id,
        "agent_type": run.agent_type,
        "description": run.description,
        "parent_tool_use_id": run.parent_tool_use_id,
        "background": run.background,
        "status": status,
    }
