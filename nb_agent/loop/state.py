"""The loop's explicit state, its parameters and dependencies (SPEC §1–2).

``State`` is immutable: every continue site builds a whole new one, naming why in
``transition``. ``QueryParams`` is what one submission asks for; ``QueryDeps`` is what
the loop calls out to, injected so tests can script the model and the compactor.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from nb_agent.context.compaction import AutoCompactTracking, CompactionResult
from nb_agent.hooks.types import SubagentInfo
from nb_agent.loop.pipeline import ToolRunDeps
from nb_agent.messages import ApiHistory, AssistantMessage, StreamEvent
from nb_agent.model.client import ModelRequest
from nb_agent.model.request_shape import RequestShape
from nb_agent.tools.base import ToolUseContext

ContinueReason = Literal[
    "next_turn",
    "collapse_drain_retry",
    "reactive_compact_retry",
    "max_output_tokens_escalate",
    "max_output_tokens_recovery",
    "stop_hook_blocking",
    "token_budget_continuation",
]
CONTINUE_REASONS: tuple[ContinueReason, ...] = ContinueReason.__args__

TerminalReason = Literal[
    "completed",
    "aborted_streaming",
    "aborted_tools",
    "blocking_limit",
    "prompt_too_long",
    "image_error",
    "model_error",
    "max_turns",
    "hook_stopped",
    "stop_hook_prevented",
]
TERMINAL_REASONS: tuple[TerminalReason, ...] = TerminalReason.__args__

DEFAULT_MAX_OUTPUT_TOKENS = 8_192
"""Requests start from this capped output limit unless configured (SPEC §2)."""
ESCALATED_MAX_OUTPUT_TOKENS = 64_000
MAX_OUTPUT_TOKENS_RECOVERY_LIMIT = 3


@dataclass(frozen=True, kw_only=True)
class Continue:
    reason: ContinueReason


@dataclass(frozen=True, kw_only=True)
class Terminal:
    """Why the loop ended; the last item ``query()`` yields."""

    type: Literal["terminal"] = "terminal"
    reason: TerminalReason
    error: str | None = None
    turn_count: int = 0


@dataclass(frozen=True, kw_only=True)
class State:
    messages: list[Any]
    tool_use_context: ToolUseContext
    auto_compact_tracking: AutoCompactTracking = field(default_factory=AutoCompactTracking)
    max_output_tokens_recovery_count: int = 0
    has_attempted_reactive_compact: bool = False
    max_output_tokens_override: int | None = None
    pending_tool_use_summary: Any = None
    """An ``asyncio.Task`` producing the previous batch's ``ToolUseSummaryMessage`` (or None)."""
    stop_hook_active: bool = False
    turn_count: int = 1
    transition: Continue | None = None


CallModel = Callable[[ModelRequest], AsyncIterator["StreamEvent | AssistantMessage"]]


async def _no_microcompact(messages: list[Any], ctx: ToolUseContext) -> list[Any]:
    return messages


async def _no_autocompact(messages: list[Any], ctx: ToolUseContext, tracking: AutoCompactTracking) -> tuple[CompactionResult | None, AutoCompactTracking]:
    return None, tracking


def _new_uuid() -> str:
    return str(uuid.uuid4())


@dataclass(frozen=True, kw_only=True)
class QueryDeps:
    """The loop's collaborators. Defaults do nothing so a bare loop runs; the session
    layer plugs in context management (``nb_agent.context``)."""

    call_model: CallModel
    microcompact: Callable[[list[Any], ToolUseContext], Awaitable[list[Any]]] = _no_microcompact
    autocompact: Callable[
        [list[Any], ToolUseContext, AutoCompactTracking], Awaitable[tuple[CompactionResult | None, AutoCompactTracking]]
    ] = _no_autocompact
    reactive_compact: Callable[[list[Any], ToolUseContext], Awaitable[CompactionResult | None]] | None = None
    collapse_drain: Callable[[list[Any]], Awaitable[list[Any] | None]] | None = None
    apply_tool_result_budget: Callable[[list[Any]], Awaitable[list[Any]]] | None = None
    snip: Callable[[list[Any]], list[Any]] | None = None
    rewrite_tool_results: Callable[[list[Any], ToolUseContext], Awaitable[list[Any]]] | None = None
    """The tiers that rewrite old tool results in place (result budget, microcompact, image
    window), as one incremental pass: the session's ``ContextManager`` provides it."""
    is_at_blocking_limit: Callable[[list[Any], str], bool] = lambda messages, model: False
    refresh_tools: Callable[[ToolUseContext], Awaitable[ToolUseContext]] | None = None
    summarize_tool_uses: Callable[[list[Any], list[Any]], Awaitable[Any]] | None = None
    """Optional small-model summary of a tool batch, run during the next model call."""
    between_turns: Callable[[], Awaitable[list[Any]]] | None = None
    """Attachments to add after a turn's tool results, before the next model call (what
    changed around the agent meanwhile, e.g. the user's edits of the notebook)."""
    turn_attachments: Callable[[list[Any], list[Any]], list[Any]] | None = None
    """The session's own attachments at a turn boundary (seed 002 §14), given the turn's
    tool_use blocks and results: queued notifications (a background agent finished) and
    memory the turn's file reads brought (a subfolder's CLAUDE.md)."""
    uuid: Callable[[], str] = _new_uuid


@dataclass(frozen=True, kw_only=True)
class QueryParams:
    """One submission: history (ending with the new user input) and how to run it."""

    messages: list[Any]
    tool_use_context: ToolUseContext
    tool_run_deps: ToolRunDeps = field(default_factory=ToolRunDeps)
    system_prompt: list[dict[str, Any]] | str | None = None
    model: str = "claude-sonnet-4-6"
    fallback_model: str | None = None
    max_turns: int | None = None
    max_output_tokens: int | None = None
    thinking: dict[str, Any] | None = None
    token_budget: int | None = None
    query_source: str = "repl_main_thread"
    streaming_tool_execution: bool = True
    tool_definitions: Callable[[Sequence[Any], list[Any]], list[dict[str, Any]]] | None = None
    """Builds the request's ``tools`` from the pool and the window (ToolSearch defers some)."""
    prepend_messages: list[Any] = field(default_factory=list)
    """Sent before the history on every request (project instructions reminder)."""
    subagent: SubagentInfo | None = None
    """Set for a subagent's loop: its end runs SubagentStop hooks (with this identity) instead of Stop."""
    prompt_caching: bool = True
    """Mark cache breakpoints (``nb_agent.model.prompt_cache``); False removes them all."""
    api_history: ApiHistory | None = None
    """The session's normalized history, kept across submissions so a new one normalizes
    only what it adds (None: one for this submission)."""

    @property
    def shape(self) -> RequestShape:
        """What every request of this run shares besides its messages."""
        return RequestShape(
            model=self.model,
            system=self.system_prompt,
            prepend_messages=self.prepend_messages,
            tool_definitions=self.tool_definitions,
            prompt_caching=self.prompt_caching,
            thinking=self.thinking,
        )
