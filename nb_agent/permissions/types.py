"""Permission decisions as a tagged union, and the UI-free callback type that resolves them."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from nb_agent.tools.base import Tool, ToolUseContext
    from nb_agent.tools.files.change_preview import ChangePreview

PermissionMode = Literal["default", "acceptEdits", "plan", "bypassPermissions"]
PERMISSION_MODES: tuple[PermissionMode, ...] = ("default", "acceptEdits", "plan", "bypassPermissions")


@dataclass(frozen=True, kw_only=True, slots=True)
class PermissionAllow:
    """Run the tool, optionally with an input the user or a hook rewrote."""

    behavior: Literal["allow"] = "allow"
    updated_input: dict[str, Any] | None = None
    rule_to_add: str | None = None
    """Set by an "Always allow" answer: a session allow rule such as ``Bash(touch:*)``."""
    reason: str | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class PermissionDeny:
    """Do not run the tool; ``message`` goes back to the model in the error tool_result."""

    behavior: Literal["deny"] = "deny"
    message: str
    interrupt: bool = False
    """Also stop the whole run (the user chose to stop, not merely to refuse)."""


@dataclass(frozen=True, kw_only=True, slots=True)
class PermissionAsk:
    """The rules cannot decide: ask the user (through the ``CanUseTool`` callback)."""

    behavior: Literal["ask"] = "ask"
    message: str
    suggested_rule: str | None = None
    """The rule an "Always allow" answer would add (a prefix rule for Bash)."""
    hook_may_allow: bool = True
    """False for the asks only the user may answer (an ask rule, a protected file, a write
    outside the working directories): a PreToolUse hook's "allow" does not skip them."""


PermissionDecision = PermissionAllow | PermissionDeny | PermissionAsk
"""What a rule engine, a tool's ``check_permissions`` or a hook decides."""

PermissionResult = PermissionAllow | PermissionDeny
"""What the interactive callback must answer."""


@dataclass(frozen=True, kw_only=True, slots=True)
class PermissionRequest:
    """What the callback is asked to decide."""

    tool_use_id: str
    tool_name: str
    input: dict[str, Any]
    message: str
    suggested_rule: str | None = None
    agent: str | None = None
    """Who asks, when it is a subagent (e.g. ``Explore agent “scan the CSVs”``); None: the main agent."""
    change: ChangePreview | None = None
    """What the call would change (a diff, a cell before and after), when the tool can say."""


CanUseTool = Callable[["Tool[Any]", "PermissionRequest", "ToolUseContext"], Awaitable[PermissionResult]]
"""The interactive resolver of an *ask* decision (the approval buttons are one)."""


@dataclass(frozen=True, kw_only=True, slots=True)
class PermissionDenialRecord:
    """One denied tool call, kept by the session and fed back to the model."""

    tool_name: str
    tool_use_id: str
    input: dict[str, Any]
    message: str = ""
    source: str = field(default="rule")


class PermissionPolicy:
    """Decides allow / deny / ask for a tool call before the interactive callback.

    The default consults only the tool's own ``check_permissions``; the rule engine
    (``nb_agent.permissions.policy.RuleBasedPolicy``) subclasses it with settings rules and modes.
    """

    async def decide(self, tool: Tool[Any], input: Any, ctx: ToolUseContext) -> PermissionDecision:
        return await tool.check_permissions(input, ctx)

    async def deny_rule_decision(self, tool: Tool[Any], input: Any, ctx: ToolUseContext) -> PermissionDecision | None:
        """A deny rule's answer, asked before the tool validates its input (which may look
        at the disk: a denied file's existence must not leak). Default: no rules."""
        return None

    def add_session_rule(self, behavior: Literal["allow", "deny", "ask"], rule: str) -> None:
        """Record a rule for the rest of the session (an "Always allow" answer)."""
        raise NotImplementedError("this policy keeps no rules")
