"""The ``Agent`` tool (alias ``Task``): hand a self-contained task to a subagent.

Input as Claude Code's: ``description`` (3-5 words), ``prompt``, ``subagent_type``
(none: a fork of the main agent, :mod:`nb_agent.agents.fork`), ``model``, ``run_in_background``. Several Agent calls in one
response run concurrently (the tool is concurrency-safe); each subagent's own tools go
through the usual permission chain, so the call itself does not ask.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from nb_agent.agents.definition import GENERAL_PURPOSE
from nb_agent.agents.filtering import AGENT_TOOL_NAME
from nb_agent.agents.fork import FORK, fork_enabled
from nb_agent.agents.host import MAX_SUBAGENT_DEPTH
from nb_agent.agents.loader import AgentCatalog
from nb_agent.agents.runner import SubagentOutcome
from nb_agent.errors import ToolError
from nb_agent.tools.base import InterruptBehavior, ProgressCallback, Tool, ToolResult, ToolUseContext

COUNTED_STREAM_EVENTS = frozenset({"message_start", "message_delta"})
"""The only raw stream events forwarded as progress (they carry the token counts): a card
shows turns, tools, tokens and the answer, not every delta."""


class AgentInput(BaseModel):
    description: str = Field(description="A short (3-5 word) description of the task")
    prompt: str = Field(description="The task for the agent to perform")
    subagent_type: str | None = Field(
        default=None, description="The type of specialized agent to use for this task; omit it to fork yourself (see above)"
    )
    model: str | None = Field(
        default=None,
        description="Optional model for this agent ('sonnet', 'opus', 'haiku' or a model id); default: the agent's own, else yours",
    )
    run_in_background: bool = Field(
        default=False,
        description="Run the agent in the background; you get its id at once and its result in a later message",
    )


_PROMPT = """\
Launch a new agent to handle a complex, multi-step task on its own. The agent works in its \
own context and returns only its final report, so your conversation stays small.

Available agent types and when to use them:
{agents}

{choosing}

Usage notes:
- Launch several agents concurrently whenever possible, to maximize performance: put \
several Agent tool uses in one message. Agents that only read (Explore) are safe to run \
side by side.
- The agent's result is not shown to the user: tell the user what it found, briefly.
- An agent of a subagent_type starts fresh: write a detailed, self-contained prompt that \
says exactly what to find or do and what to report back (e.g. "list the files and their row \
counts"). A fork knows what you know: tell it only its part.
- Its outputs should generally be trusted.
- With run_in_background the agent keeps working after your turn; you are told when it \
finishes. Do not poll or wait for it. A background agent cannot ask the user for permission.
- Give the agent a short description (3-5 words) of its task."""


_FORKING = """\
Set subagent_type to start a fresh agent of that type, with its own prompt and tools. Omit \
subagent_type to fork yourself: the fork starts with your whole conversation, tools and \
model (it reads your prompt cache, so it starts fast and cheap), so its prompt can be a \
short directive; several forks can work side by side on separate parts of a task. A fork \
cannot ask the user anything or fork again."""


class AgentTool(Tool[AgentInput]):
    name = AGENT_TOOL_NAME
    aliases = ("Task",)
    input_model = AgentInput
    search_hint = "delegate a task to a subagent explore plan parallel"
    max_result_size_chars = 100_000

    def __init__(self, catalog: AgentCatalog, *, allowed_types: tuple[str, ...] | None = None) -> None:
        self.catalog = catalog
        self.allowed_types = allowed_types
        """From an ``Agent(explore, plan)`` spec: the only types this instance may start."""

    def restricted_to(self, types: tuple[str, ...]) -> AgentTool:
        return AgentTool(self.catalog, allowed_types=types)

    def _offered(self) -> list[Any]:
        if self.allowed_types is None:
            return list(self.catalog.definitions)
        allowed = {t.lower() for t in self.allowed_types}
        return [d for d in self.catalog.definitions if d.name.lower() in allowed]

    def prompt(self) -> str:
        lines = []
        for definition in self._offered():
            tools = "All tools" if definition.tools is None else ", ".join(definition.tools)
            if definition.disallowed_tools and definition.tools is None:
                tools = f"All tools except {', '.join(definition.disallowed_tools)}"
            lines.append(f"- {definition.name}: {definition.description} (Tools: {tools})")
        choosing = _FORKING if fork_enabled() else f"When using the Agent tool, set subagent_type to pick the agent type (default: {GENERAL_PURPOSE})."
        return _PROMPT.format(agents="\n".join(lines) or "(none)", choosing=choosing)

    def user_facing_name(self, input: AgentInput | None = None) -> str:
        return input.subagent_type or GENERAL_PURPOSE if input is not None else self.name

    # An Agent call changes nothing by itself; each of its subagent's calls is checked.
    def is_read_only(self, input: AgentInput) -> bool:
        return True

    def is_concurrency_safe(self, input: AgentInput) -> bool:
        return True

    def interrupt_behavior(self) -> InterruptBehavior:
        return "cancel"

    async def call(self, input: AgentInput, ctx: ToolUseContext, on_progress: ProgressCallback) -> ToolResult:
        host = ctx.session.resources.subagents
        if host is None:
            raise ToolError("Subagents are not available in this session.")
        caller = ctx.services.agent_id
        fork = input.subagent_type is None and fork_enabled()
        if fork and caller is not None:  # only the main agent forks (a fork never forks again)
            raise ToolError("Only the main agent can fork itself: give subagent_type to start a subagent.")
        definition = FORK if fork else self._definition(input.subagent_type or GENERAL_PURPOSE, host.catalog)
        depth = host.depth_below(caller)
        if depth > MAX_SUBAGENT_DEPTH:  # its tools never include Agent; a stale pool must not nest either
            raise ToolError(f"Subagents nest at most {MAX_SUBAGENT_DEPTH} deep: do this part yourself.")
        resolved = host.tools_for(definition, background=input.run_in_background, depth=depth)
        run = host.new_run(
            definition,
            description=input.description.strip() or definition.name,
            prompt=input.prompt,
            parent_tool_use_id=ctx.tool_use_id or "",
            model=input.model,
            background=input.run_in_background,
            parent_abort=ctx.abort_controller,
            depth=depth,
            fork=fork,
        )
        if input.run_in_background:
            host.launch_background(run, resolved.tools)
            return ToolResult(data=SubagentOutcome.of(run, status="launched"))
        run.listeners.append(lambda event: _forward(event, run.agent_id, on_progress))
        on_progress({"subagent_id": run.agent_id, "subagent_type": definition.name, "subagent_started": True})
        outcome = await host.run_foreground(run, resolved.tools)
        return ToolResult(data=outcome, is_error=outcome.status != "completed")

    def _definition(self, name: str, catalog: AgentCatalog) -> Any:
        definition = catalog.find(name)
        offered = self._offered()
        if definition is None or definition not in offered:
            names = ", ".join(d.name for d in offered) or "none"
            raise ToolError(f"Agent type '{name}' not found. Available agents: {names}")
        return definition

    def map_result_to_block(self, data: Any, tool_use_id: str) -> str:
        if not isinstance(data, SubagentOutcome):
            return super().map_result_to_block(data, tool_use_id)  # type: ignore[return-value]
        if data.status == "launched":
            return (
                f"Async agent launched successfully.\nagentId: {data.agent_id}\n"
                "The agent is working in the background. You will be notified automatically when it "
                "completes; do not wait for it or check on it. Continue with other work or answer the user."
            )
        body = data.text.strip() or "(the agent gave no final message)"
        if data.status != "completed":
            body = f"The {data.agent_type} agent {data.status}: {data.error or 'no reason given'}\nIts last message:\n{body}"
        return f"{body}\n\n{data.usage_line()}"


def _forward(event: Any, agent_id: str, on_progress: ProgressCallback) -> None:
    if getattr(event, "type", None) == "stream_event" and event.event.type not in COUNTED_STREAM_EVENTS:
        return
    on_progress({"subagent_id": agent_id, "subagent_event": event})
