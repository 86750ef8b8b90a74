"""The subagents of one session: the agent catalog, the runs, background agents.

A :class:`SubagentHost` sits in the parent engine's ``ToolSession.resources`` (so the Agent
tool finds it) and knows the engine its subagents are children of. Foreground runs are
awaited by the Agent call; background runs are tasks on the event loop that outlive the
submission and queue their final message on the parent, which takes it in at its next
submission (the seeds' queued notifications).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from nb_agent.abort import AbortController
from nb_agent.agents.definition import AgentDefinition
from nb_agent.agents.filtering import AGENT_TOOL_NAME, ResolvedTools, resolve_agent_tools
from nb_agent.agents.loader import AgentCatalog
from nb_agent.agents.runner import STOPPED_BY_USER, SubagentOutcome, SubagentRun, run_subagent
from nb_agent.errors import ConfigurationError
from nb_agent.messages import AttachmentMessage
from nb_agent.tools.base import Tool

if TYPE_CHECKING:
    from nb_agent.engine import QueryEngine

log = logging.getLogger(__name__)

MAX_SUBAGENT_DEPTH = 2
"""How deep subagents nest: the main agent's subagents (depth 1) may start subagents only
when their definition lists ``Agent``; those (depth 2) never get the Agent tool."""
TASK_NOTIFICATION = "task_notification"


class SubagentHost:
    """Starts subagents for ``parent`` and keeps track of them."""

    def __init__(self, *, parent: QueryEngine, catalog: AgentCatalog) -> None:
        self.parent = parent
        self.catalog = catalog
        self.runs: dict[str, SubagentRun] = {}
        self.background_root = AbortController()
        """Parent of every background run's controller (not of the submission's: they outlive it)."""
        self.on_background_start: list[Callable[[SubagentRun], None]] = []
        """Called when a background run starts (the notebook shows a card that keeps updating)."""

    # --- wiring ---------------------------------------------------------------------------
    def bind(self, engine: QueryEngine) -> None:
        """Make ``engine`` the parent (a resumed session replaces the engine)."""
        self.parent = engine
        engine.tool_session.resources.subagents = self

    # --- starting ---------------------------------------------------------------------------
    def depth_below(self, caller_id: str | None) -> int:
        """The depth of an agent started by ``caller_id`` (None: the main agent)."""
        caller = self.runs.get(caller_id) if caller_id else None
        return caller.depth + 1 if caller is not None else 1

    def tools_for(self, definition: AgentDefinition, *, background: bool, depth: int = 1) -> ResolvedTools:
        """The subagent's tools from the parent's whole pool (not the calling agent's); an
        agent at :data:`MAX_SUBAGENT_DEPTH` gets no Agent tool, whatever it lists."""
        pool = [t for t in self.parent.tools if depth < MAX_SUBAGENT_DEPTH or t.name != AGENT_TOOL_NAME]
        resolved = resolve_agent_tools(definition, pool, is_background=background)
        named = [n for n in definition.mcp_servers if isinstance(n, str)]
        if named:  # tools of the session's servers the definition names, whatever its allow-list
            wanted = [t for t in pool if t.is_mcp and any(t.name.startswith(f"mcp__{n}__") for n in named)]
            resolved = ResolvedTools(
                tools=[*resolved.tools, *(t for t in wanted if t not in resolved.tools)],
                invalid_specs=resolved.invalid_specs,
                allowed_agent_types=resolved.allowed_agent_types,
            )
        if resolved.allowed_agent_types is not None:
            tools = [
                t.restricted_to(resolved.allowed_agent_types) if t.name == AGENT_TOOL_NAME and hasattr(t, "restricted_to") else t
                for t in resolved.tools
            ]
            resolved = ResolvedTools(tools=tools, invalid_specs=resolved.invalid_specs, allowed_agent_types=resolved.allowed_agent_types)
        return resolved

    def new_run(
        self,
        definition: AgentDefinition,
        *,
        description: str,
        prompt: str,
        parent_tool_use_id: str,
        model: str | None,
        background: bool,
        parent_abort: AbortController | None,
        depth: int = 1,
        fork: bool = False,
    ) -> SubagentRun:
        abort = (self.background_root if background or parent_abort is None else parent_abort).child()
        run = SubagentRun(
            definition=definition,
            description=description,
            prompt=prompt,
            parent_tool_use_id=parent_tool_use_id,
            background=background,
            model=definition.resolved_model(self.parent.config.model, model),
            abort=abort,
            depth=depth,
            fork=fork,
        )
        self.runs[run.agent_id] = run
        return run

    async def run_foreground(self, run: SubagentRun, tools: list[Tool[Any]]) -> SubagentOutcome:
        return await run_subagent(self.parent, run, tools)

    def launch_background(self, run: SubagentRun, tools: list[Tool[Any]]) -> None:
        """Start ``run`` as a task on the running loop; it queues a notification when done."""
        run.task = asyncio.ensure_future(self._background(run, tools))
        for callback in list(self.on_background_start):
            try:
                callback(run)
            except Exception:  # the agent runs whether or not it is shown
                log.debug("background start callback failed", exc_info=True)

    async def _background(self, run: SubagentRun, tools: list[Tool[Any]]) -> None:
        try:
            outcome = await run_subagent(self.parent, run, tools)
        except asyncio.CancelledError:
            outcome = SubagentOutcome.of(run)
        self.parent.pending_notifications.append(notification(outcome))

    # --- managing -----------------------------------------------------------------------------
    def background_runs(self) -> list[SubagentRun]:
        return [r for r in self.runs.values() if r.background]

    def find(self, agent_id: str) -> SubagentRun:
        """A run by id or unique id prefix; raises ``ConfigurationError``."""
        matches = [r for r in self.runs.values() if r.agent_id.startswith(agent_id.strip())] if agent_id.strip() else []
        if not matches:
            raise ConfigurationError(f"No subagent {agent_id!r}; %agent tasks lists them")
        if len(matches) > 1:
            raise ConfigurationError(f"{agent_id!r} matches {len(matches)} subagents; give more of the id")
        return matches[0]

    def stop(self, agent_id: str) -> SubagentRun:
        run = self.find(agent_id)
        if not run.finished:
            run.abort.abort(STOPPED_BY_USER)
        return run

    async def aclose(self) -> None:
        """Stop every background run and wait (briefly) for them to save what they have."""
        self.background_root.abort(STOPPED_BY_USER)
        tasks = [r.task for r in self.runs.values() if r.task is not None and not r.task.done()]
        if tasks:
            await asyncio.wait(tasks, timeout=5.0)


def notification(outcome: SubagentOutcome) -> AttachmentMessage:
    """What the main conversation gets when a background agent ends."""
    state = {"completed": "completed", "failed": "failed", "stopped": "was stopped"}.get(outcome.status, outcome.status)
    body = outcome.text.strip() or "(it gave no final message)"
    error = f"\nError: {outcome.error}" if outcome.error and outcome.status != "completed" else ""
    content = (
        f"<task-notification>\nBackground agent {outcome.agent_id} ({outcome.agent_type}: {outcome.description}) {state}.{error}\n"
        f"Its final message:\n{body}\n"
        f"<usage>total_tokens: {outcome.total_tokens}\ntool_uses: {outcome.tool_uses}</usage>\n</task-notification>"
    )
    return AttachmentMessage(kind=TASK_NOTIFICATION, content=content)


def attach_subagents(engine: QueryEngine, catalog: AgentCatalog, *, host: SubagentHost | None = None) -> SubagentHost:
    """Give ``engine`` a host (or re-bind an existing one, keeping its runs)."""
    host = host or SubagentHost(parent=engine, catalog=catalog)
    host.catalog = catalog
    host.bind(engine)
    return host
