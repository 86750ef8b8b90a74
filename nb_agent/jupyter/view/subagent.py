"""What the notebook knows about one subagent: its own :class:`RunState`, fed from the
Agent call's progress (or, for a background agent, from the run itself), its live
counters and, at the end, its outcome."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from nb_agent.jupyter.view.run_state import RunState, ToolCall

SubagentStatus = str
"""``running``, ``completed``, ``failed``, ``stopped``, or ``launched`` (in the background)."""


@dataclass(eq=False, kw_only=True)
class SubagentView:
    agent_id: str
    agent_type: str = ""
    description: str = ""
    state: RunState
    """The subagent's own run (its maker gives it: a RunState holds SubagentViews in turn)."""
    background: bool = False
    status: SubagentStatus = "running"
    input_tokens: int = 0
    output_tokens: int = 0
    final_text: str = ""
    error: str | None = None
    started_at: float = field(default_factory=time.monotonic)
    ended_at: float | None = None

    @classmethod
    def for_run(cls, run: Any, *, state: RunState) -> SubagentView:
        """From an engine ``SubagentRun`` (a background agent, followed directly), shown in ``state``."""
        return cls(
            agent_id=run.agent_id,
            agent_type=run.agent_type,
            description=run.description,
            background=run.background,
            state=state,
        )

    # --- feeding ---------------------------------------------------------------------------
    def take(self, event: Any) -> Any:
        """Feed one subagent event (a loop event, or the run itself when it ends)."""
        if hasattr(event, "agent_id") and hasattr(event, "definition"):
            self.finish_from(event)
            return None
        kind = getattr(event, "type", None)
        if kind == "stream_event":
            self._count(event.event)
            return event
        self.state.on_event(event)
        return event

    def _count(self, raw: Any) -> None:
        if raw.type == "message_start":
            usage = raw.message.usage
            self.input_tokens += (usage.input_tokens or 0) + (usage.cache_read_input_tokens or 0) + (usage.cache_creation_input_tokens or 0)
        elif raw.type == "message_delta":
            self.output_tokens += int(getattr(raw.usage, "output_tokens", 0) or 0)

    def finish_from(self, run_or_outcome: Any) -> None:
        """The end: a ``SubagentRun`` (background) or the Agent call's ``SubagentOutcome``."""
        status = getattr(run_or_outcome, "status", "completed")
        if status == "launched":
            self.background = True
            self.agent_type = run_or_outcome.agent_type
            self.description = run_or_outcome.description
            self.status = "launched"
            return
        self.status = status
        self.final_text = getattr(run_or_outcome, "text", "") or ""
        self.error = getattr(run_or_outcome, "error", None)
        usage = getattr(run_or_outcome, "usage", None)
        if usage is not None:
            self.input_tokens, self.output_tokens = usage.context_tokens, usage.output_tokens
        elif getattr(run_or_outcome, "total_tokens", 0):
            self.input_tokens, self.output_tokens = run_or_outcome.total_tokens, 0
        self.ended_at = time.monotonic()
        self.state.finish(interrupted=status == "stopped")

    # --- reading ---------------------------------------------------------------------------
    @property
    def finished(self) -> bool:
        return self.status not in ("running",)

    @property
    def tool_calls(self) -> list[ToolCall]:
        return self.state.cards

    @property
    def tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    def elapsed(self) -> float:
        end = self.ended_at if self.ended_at is not None else time.monotonic()
        return max(0.0, end - self.started_at)

    @property
    def latest_text(self) -> str:
        """The final answer, or while running the last thing it said."""
        return self.final_text or self.state.answer_text.rsplit("\n\n", 1)[-1]
