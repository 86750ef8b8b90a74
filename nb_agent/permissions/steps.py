"""The permission chain's call record and its generic steps (SPEC §8).

:meth:`~nb_agent.permissions.policy.RuleBasedPolicy.decide` runs a tuple of steps
(:mod:`nb_agent.permissions.chain`) over one :class:`PermissionCall`; each step returns a
decision, which ends the chain, or ``None``. A tool family (shell, file edits, file
reads) puts its own steps in some places of the chain.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from nb_agent.permissions.rules import PermissionRule, RuleBehavior, ToolFamily
from nb_agent.permissions.types import (
    PermissionAllow,
    PermissionAsk,
    PermissionDecision,
    PermissionDeny,
    PermissionMode,
)

if TYPE_CHECKING:
    from nb_agent.permissions.fast_path import ReadScope
    from nb_agent.tools.base import Tool, ToolUseContext

__all__ = [
    "PermissionCall",
    "PolicyView",
    "Step",
    "allow_rule",
    "ask_rule",
    "ask_the_user",
    "bypass_mode",
    "deny_rule",
    "plan_mode",
    "read_only_allows",
    "tool_asks",
    "tool_check",
    "tool_vouches",
]


class PolicyView(Protocol):
    """What the steps read from the policy deciding the call."""

    @property
    def rules(self) -> tuple[PermissionRule, ...]: ...

    def matching_rule(
        self, tool: Tool[Any], input: Any, ctx: ToolUseContext, *, behavior: RuleBehavior
    ) -> PermissionRule | None: ...

    def read_scope(self, ctx: ToolUseContext) -> ReadScope: ...

    def working_directories(self, ctx: ToolUseContext) -> list[Path]: ...

    def tool_path(self, tool: Tool[Any], input: Any, ctx: ToolUseContext) -> Path | None: ...

    def suggest(self, tool: Tool[Any], input: Any, ctx: ToolUseContext) -> str | None: ...

    def suggest_read(self, path: Path, *, tree: bool, ctx: ToolUseContext) -> str: ...


@dataclass(kw_only=True)
class PermissionCall:
    """One tool call being decided, and what earlier steps found out about it."""

    policy: PolicyView
    tool: Tool[Any]
    input: Any
    ctx: ToolUseContext
    mode: PermissionMode
    family: ToolFamily
    tool_decision: PermissionDecision | None = None
    """The tool's own ``check_permissions`` answer (set by :func:`tool_check`)."""
    held_ask: PermissionAsk | None = None
    """An ask a step found but later steps may still answer (the Bash fast path's, which
    a sandbox may vouch for); the last step returns it."""

    @cached_property
    def read_only(self) -> bool:
        """The tool's own word that this call only reads."""
        return self.tool.is_read_only(self.input)

    @property
    def updated_input(self) -> Any:
        """The input the tool's own check rewrote, if it did."""
        return self.tool_decision.updated_input if isinstance(self.tool_decision, PermissionAllow) else None

    @property
    def content(self) -> str:
        """What rules are matched against (the command, the path, the URL)."""
        return self.tool.permission_rule_content(self.input) or ""

    def rule(self, behavior: RuleBehavior) -> PermissionRule | None:
        """The first rule of ``behavior`` matching the call."""
        return self.policy.matching_rule(self.tool, self.input, self.ctx, behavior=behavior)

    def allow(self, reason: str) -> PermissionAllow:
        return PermissionAllow(updated_input=self.updated_input, reason=reason)


Step = Callable[[PermissionCall], Awaitable[PermissionDecision | None]]
"""One step of the chain: a decision, or ``None`` to go on."""


async def deny_rule(call: PermissionCall) -> PermissionDecision | None:
    """1. A deny rule denies, in every mode."""
    if rule := call.rule("deny"):
        return PermissionDeny(
            message=f"Permission to use {call.tool.name} has been denied by the rule {rule.text} ({rule.source} settings)."
        )
    return None


async def plan_mode(call: PermissionCall) -> PermissionDecision | None:
    """2. Plan mode denies a tool that is not read-only."""
    if call.mode == "plan" and not call.read_only:
        return PermissionDeny(
            message=(
                f"The session is in plan mode, so {call.tool.name} was not run: plan mode allows only "
                "read-only tools and makes no changes. Finish the plan and present it instead."
            )
        )
    return None


async def ask_rule(call: PermissionCall) -> PermissionDecision | None:
    """3. An ask rule asks, in every mode (``bypassPermissions`` included)."""
    if rule := call.rule("ask"):
        return PermissionAsk(
            message=f"The rule {rule.text} ({rule.source} settings) asks before {call.tool.name} runs.",
            hook_may_allow=False,
        )
    return None


async def tool_check(call: PermissionCall) -> PermissionDecision | None:
    """4. The tool's own ``check_permissions``: a deny denies; an ask waits for step 6."""
    call.tool_decision = await call.tool.check_permissions(call.input, call.ctx)
    return call.tool_decision if isinstance(call.tool_decision, PermissionDeny) else None


async def tool_asks(call: PermissionCall) -> PermissionDecision | None:
    """6. The tool's ask asks; ``bypassPermissions`` answers it, except for a question
    only the user can answer (``requires_user_interaction``: no hook's allow does)."""
    asked = call.tool_decision
    if not isinstance(asked, PermissionAsk):
        return None
    if call.tool.requires_user_interaction:
        return replace(asked, hook_may_allow=False)
    if call.mode == "bypassPermissions":
        return PermissionAllow(reason="bypassPermissions mode")
    if asked.suggested_rule is None:
        return PermissionAsk(message=asked.message, suggested_rule=call.policy.suggest(call.tool, call.input, call.ctx))
    return asked


async def bypass_mode(call: PermissionCall) -> PermissionDecision | None:
    """7. ``bypassPermissions`` allows."""
    return call.allow("bypassPermissions mode") if call.mode == "bypassPermissions" else None


async def allow_rule(call: PermissionCall) -> PermissionDecision | None:
    """8. An allow rule allows."""
    if rule := call.rule("allow"):
        return call.allow(f"rule {rule.text} ({rule.source} settings)")
    return None


async def read_only_allows(call: PermissionCall) -> PermissionDecision | None:
    """9. A read-only tool runs. An MCP tool's readOnlyHint is the server's own claim: it
    makes the tool concurrency-safe, but running it still takes the user's (or a rule's)
    consent; a read-only tool that talks to other hosts asks too."""
    if call.read_only and not call.tool.is_mcp and not call.tool.reaches_network:
        return call.allow("read-only")
    return None


async def tool_vouches(call: PermissionCall) -> PermissionDecision | None:
    """10. The tool vouches for the call (``auto_allow_reason``: Bash that will run
    sandboxed with ``autoAllowBashIfSandboxed``)."""
    if reason := call.tool.auto_allow_reason(call.input, call.ctx):
        return call.allow(reason)
    return None


async def ask_the_user(call: PermissionCall) -> PermissionDecision:
    """11. Otherwise ask (with an earlier step's reason, if one held it), suggesting the
    rule an "Always allow" answer would add."""
    if call.held_ask is not None:
        return call.held_ask
    return PermissionAsk(
        message=f"nb_agent wants to use {call.tool.name}; you have not allowed it yet.",
        suggested_rule=call.policy.suggest(call.tool, call.input, call.ctx),
    )
