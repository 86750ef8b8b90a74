"""Hook events, inputs and outputs, in Claude Code's shapes (its hooks reference).

A command hook gets :meth:`HookInput.to_json_dict` as JSON on stdin: the common fields
(``session_id``, ``transcript_path``, ``cwd``, ``permission_mode``, ``hook_event_name``)
plus the event's own (``tool_name``/``tool_input`` for tool events, ``prompt``,
``source``, ``reason``, ``trigger``/``custom_instructions``, ``message``/
``notification_type``, ``agent_id``/``agent_type``...). Fields that do not apply to an
event are left out.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, fields
from typing import Any, Literal, get_args

HookEvent = Literal[
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "Notification",
    "UserPromptSubmit",
    "SessionStart",
    "SessionEnd",
    "Stop",
    "SubagentStop",
    "PreCompact",
    "PermissionRequest",
    "StopFailure",
]
HOOK_EVENTS: tuple[HookEvent, ...] = get_args(HookEvent)

TOOL_EVENTS: frozenset[str] = frozenset({"PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest"})
"""Events whose matcher is matched against the tool name."""

CONTEXT_EVENTS: frozenset[str] = frozenset({"UserPromptSubmit", "SessionStart"})
"""Events whose plain stdout (exit 0) is context for the model, as in Claude Code."""

EXIT_2_TO_MODEL: frozenset[str] = frozenset({"PreToolUse", "PostToolUse", "PostToolUseFailure", "Stop", "SubagentStop", "PermissionRequest"})
"""Events where exit code 2 feeds stderr back to the model; for the others (and for
UserPromptSubmit, whose exit 2 refuses the prompt) stderr is shown to the user only."""

SessionStartSource = Literal["startup", "resume", "clear", "compact"]
SessionEndReason = Literal["clear", "logout", "prompt_input_exit", "other"]
CompactTrigger = Literal["manual", "auto"]
NotificationType = Literal["permission_prompt", "idle_prompt"]
StopFailureError = Literal[
    "rate_limit", "authentication_failed", "billing_error", "invalid_request", "server_error", "max_output_tokens", "unknown"
]
"""What ended a turn with an API error (the StopFailure matcher matches it)."""

DEFAULT_HOOK_TIMEOUT_S = 60.0


@dataclass(frozen=True, kw_only=True)
class HookInput:
    """What a hook receives (as JSON on stdin for command hooks, snake_case keys).

    Only ``hook_event_name`` is required; ``None`` fields are not sent.
    """

    hook_event_name: HookEvent
    session_id: str = ""
    transcript_path: str = ""
    cwd: str = ""
    permission_mode: str | None = None
    # tool events
    tool_name: str | None = None
    tool_input: dict[str, Any] | None = None
    tool_use_id: str | None = None
    tool_response: Any = None
    error: str | None = None
    """PostToolUseFailure: what went wrong; StopFailure: the kind of API error (:data:`StopFailureError`)."""
    error_details: str | None = None
    """StopFailure: the API error's message."""
    permission_suggestions: list[dict[str, Any]] | None = None
    """PermissionRequest: the rules an "Always allow" answer would add (``addRules`` entries)."""
    is_interrupt: bool | None = None
    # Stop / SubagentStop
    stop_hook_active: bool | None = None
    agent_id: str | None = None
    agent_type: str | None = None
    agent_transcript_path: str | None = None
    last_assistant_message: str | None = None
    # UserPromptSubmit
    prompt: str | None = None
    # SessionStart / SessionEnd
    source: SessionStartSource | None = None
    reason: SessionEndReason | None = None
    model: str | None = None
    # PreCompact
    trigger: CompactTrigger | None = None
    custom_instructions: str | None = None
    # Notification
    message: str | None = None
    notification_type: NotificationType | None = None
    title: str | None = None

    def to_json_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self) if getattr(self, f.name) is not None}

    @property
    def match_query(self) -> str | None:
        """What a matcher is matched against for this event (None: matchers are ignored)."""
        event = self.hook_event_name
        if event in TOOL_EVENTS:
            return self.tool_name
        return {
            "Notification": self.notification_type,
            "SessionStart": self.source,
            "SessionEnd": self.reason,
            "PreCompact": self.trigger,
            "SubagentStop": self.agent_type,
            "StopFailure": self.error,
        }.get(event)


@dataclass(frozen=True, kw_only=True)
class SubagentInfo:
    """Who a subagent loop is (``QueryParams.subagent``): its end fires SubagentStop, not Stop."""

    agent_id: str
    agent_type: str
    agent_transcript_path: str = ""


@dataclass(frozen=True, kw_only=True)
class HookOutput:
    """What a hook answers. All fields optional; ``None`` means "no opinion".

    Claude Code's JSON output maps onto it: ``continue`` → ``continue_``, ``stopReason``,
    ``suppressOutput``, ``systemMessage``, ``decision: "block"``/``reason`` (and exit code 2)
    → ``blocking_error``, ``hookSpecificOutput.permissionDecision`` / ``...Reason`` /
    ``updatedInput`` / ``additionalContext`` / ``updatedMCPToolOutput``.
    """

    continue_: bool = True
    """False: stop (after this tool call; the prompt is not sent; the run ends)."""
    stop_reason: str | None = None
    """Shown to the user when ``continue_`` is False."""
    suppress_output: bool = False
    """Do not show this hook's context in the cell (the model still gets it)."""
    system_message: str | None = None
    """Shown to the user, not the model."""
    blocking_error: str | None = None
    """Blocks: the tool call (Pre), feedback after the result (Post/PostToolUseFailure), keeps
    the loop going (Stop/SubagentStop), refuses the prompt (UserPromptSubmit: shown to the
    user, never sent). For the other events it is shown to the user."""
    permission_decision: Literal["allow", "deny", "ask"] | None = None
    permission_decision_reason: str | None = None
    updated_input: dict[str, Any] | None = None
    updated_output: Any = None
    additional_context: str | None = None
    """Context for the model; for PreCompact, instructions added to the summary request."""
    updated_permissions: list[dict[str, Any]] | None = None
    """PermissionRequest: rules to add for the session (``{"type": "addRules", "rules":
    [{"toolName", "ruleContent"}], "behavior"}``); other kinds are not applied."""
    interrupt: bool = False
    """PermissionRequest with ``deny``: stop the run too."""


HookCallback = Callable[[HookInput], Awaitable["HookOutput | None"]]
"""A Python hook: ``async def hook(input: HookInput) -> HookOutput | None``."""

HookSource = Literal["user", "project", "local", "python"]


@dataclass(frozen=True, kw_only=True)
class HookMatcher:
    """Hooks for one event, limited to what ``matcher`` matches (see ``matcher_matches``).

    ``matcher`` follows Claude Code: ``None``/``""``/``"*"`` match everything, a plain name
    or ``A|B`` list matches exactly, anything else is a regular expression searched in the
    match query (the tool name; for SessionStart the source, for SessionEnd the reason, for
    PreCompact the trigger, for Notification the notification type, for SubagentStop the
    agent type).
    """

    matcher: str | None = None
    hooks: list[HookCallback] = field(default_factory=list)
    timeout: float = DEFAULT_HOOK_TIMEOUT_S
    source: HookSource = "python"
    """Where it was configured: a settings file (user, project, local) or ``hooks.add``."""
    path: str | None = None
    """The settings file it came from."""
    description: str = ""
    """The command (settings hooks) or the callable's name (Python hooks)."""


@dataclass(frozen=True, kw_only=True)
class HookInfo:
    """One hook in force, for ``%agent hooks``."""

    event: HookEvent
    matcher: str | None
    source: HookSource
    path: str | None
    description: str
    timeout: float


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
    updated_permissions: list[dict[str, Any]] = field(default_factory=list)
    interrupt: bool = False
    additional_contexts: list[str] = field(default_factory=list)
    visible_contexts: list[str] = field(default_factory=list)
    """The contexts of hooks that did not ask to suppress their output (shown in the cell)."""
    system_messages: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    """Non-blocking failures (timeouts, non-zero exits, garbage output), for the user."""
    elapsed_s: float = 0.0
    ran: int = 0
    """How many hooks ran."""
