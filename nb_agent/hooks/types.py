"""Hook inputs and outputs (PreToolUse, PostToolUse, Stop), in Claude Code's shapes."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal

HookEvent = Literal["PreToolUse", "PostToolUse", "Stop", "UserPromptSubmit"]
HOOK_EVENTS: tuple[HookEvent, ...] = ("PreToolUse", "PostToolUse", "Stop", "UserPromptSubmit")

DEFAULT_HOOK_TIMEOUT_S = 60.0


@dataclass(frozen=True, kw_only=True)
class HookInput:
    """What a hook receives (as JSON on stdin for command hooks, snake_case keys)."""

    hook_event_name: HookEvent
    session_id: str = ""
    transcript_path: str = ""
    cwd: str = ""
    tool_name: str | None = None
    tool_input: dict[str, Any] | None = None
    tool_use_id: str | None = None
    tool_response: Any = None
    stop_hook_active: bool = False
    prompt: str | None = None

    def to_json_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if v is not None}


@dataclass(frozen=True, kw_only=True)
class HookOutput:
    """What a hook answers. All fields optional; ``None`` means "no opinion"."""

    continue_: bool = True
    """False: stop the run after this step (``prevent continuation``)."""
    stop_reason: str | None = None
    system_message: str | None = None
    """Shown to the user, not the model."""
    blocking_error: str | None = None
    """Fed back to the model: blocks the tool (Pre), follows the result (Post), keeps the
    loop going (Stop)."""
    permission_decision: Literal["allow", "deny", "ask"] | None = None
    permission_decision_reason: str | None = None
    updated_input: dict[str, Any] | None = None
    updated_output: Any = None
    additional_context: str | None = None


HookCallback = Callable[[HookInput], Awaitable["HookOutput | None"]]
"""A Python hook: ``async def hook(input: HookInput) -> HookOutput | None``."""


@dataclass(frozen=True, kw_only=True)
class HookMatcher:
    """Hooks for one event, limited to tools whose name matches ``matcher``.

    ``matcher`` follows Claude Code: ``None``/``""``/``"*"`` match everything, otherwise an
    exact name, an alternation ``Edit|Write`` or a regular expression.
    """

    matcher: str | None = None
    hooks: list[HookCallback] = field(default_factory=list)
    timeout: float = DEFAULT_HOOK_TIMEOUT_S


@dataclass(kw_only=True)
class AggregatedHookResult:
    """The merged answer of every hook that ran for one event."""

    blocking_errors: list[str] = field(default_factory=list)
    prevent_continuation: bool = False
    stop_reason: str | None = None
    permission_decision: Literal["allow", "deny", "ask"] | None = None
    permission_decision_reason: str | None = None
    updated_input: dict[str, Any] | None = None
    updated_output: Any = None
    additional_contexts: list[str] = field(default_factory=list)
    system_messages: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    """Non-blocking failures (timeouts, non-zero exits, garbage output), for the user."""
    elapsed_s: float = 0.0
