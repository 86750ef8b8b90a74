"""The shell family's steps in the permission chain (Bash).

- 5. the shell guard: a file a Read deny rule denies -> deny; a protected file written or a
  denied tree read -> an ask no mode skips (:mod:`nb_agent.permissions.shell_guard`);
- 8. an allow rule names a program, not what it may read: what the command's readers read
  stays within Read's scope;
- 9. every simple command covered by an allow rule or read-only, and what the reading
  ones read within Read's scope (:mod:`nb_agent.permissions.fast_path`); git only in the
  project's repository root. An ask here is held: the sandbox may still vouch (step 10).
"""

from __future__ import annotations

from nb_agent.permissions.fast_path import shell_fast_path
from nb_agent.permissions.rules import rule_applies_to_tool
from nb_agent.permissions.shell_guard import shell_guard
from nb_agent.permissions.steps import PermissionCall, allow_rule
from nb_agent.permissions.types import PermissionAllow, PermissionAsk, PermissionDecision, PermissionDeny

__all__ = ["shell_allow_rule", "shell_guard_step", "shell_read_only"]


async def shell_guard_step(call: PermissionCall) -> PermissionDecision | None:
    """5. Denials of Read deny rules, and asks no mode, allow rule or hook skips."""
    verdict = shell_guard(call.content, scope=call.policy.read_scope(call.ctx), tool_name=call.tool.name)
    if verdict is None:
        return None
    if verdict.behavior == "deny":
        return PermissionDeny(message=verdict.message)
    return PermissionAsk(message=verdict.message, hook_may_allow=False)


async def shell_allow_rule(call: PermissionCall) -> PermissionDecision | None:
    """8. An allow rule allows, unless what the command reads leaves Read's scope.

    A rule names a program, not what it may read (`Bash(cat:*)` does not open ~/.ssh).
    Reads that cannot be listed before the command runs (`cat "$f"`) stay the rule's; an
    exact rule for the whole command is the user's word for it."""
    rule = call.rule("allow")
    if rule is None:
        return None
    exact = rule.content is not None and rule.content.strip() == call.content.strip()
    if rule.content is not None and not exact:
        held = _fast_path(call, known_reads_only=True)
        if isinstance(held, (PermissionAsk, PermissionDeny)):
            return held
    return await allow_rule(call)


async def shell_read_only(call: PermissionCall) -> PermissionDecision | None:
    """9. The read-only fast path; its ask is held for the last step."""
    decision = _fast_path(call)
    if isinstance(decision, PermissionAsk):
        call.held_ask = decision
        return None
    return decision


def _fast_path(call: PermissionCall, *, known_reads_only: bool = False) -> PermissionDecision | None:
    allow_rules = [r for r in call.policy.rules if r.behavior == "allow" and rule_applies_to_tool(r, call.tool)]
    outcome = shell_fast_path(
        call.content, allow_rules=allow_rules, read_only=call.read_only,
        scope=call.policy.read_scope(call.ctx), tool_name=call.tool.name,
    )
    if outcome is None or (known_reads_only and outcome.verdict.unknown):
        return None
    verdict = outcome.verdict
    if verdict.behavior == "allow":
        return PermissionAllow(reason=outcome.reason)
    if verdict.behavior == "deny":
        return PermissionDeny(message=verdict.message)
    if verdict.outside:
        # Only reads outside the working directories asked: a Read rule for them, not a
        # rule for the program (`Bash(cat:*)` would not answer it next time).
        first = verdict.outside[0]
        suggested = call.policy.suggest_read(first.path, tree=first.kind == "tree", ctx=call.ctx)
        return PermissionAsk(message=verdict.message, suggested_rule=suggested)
    return PermissionAsk(message=verdict.message, suggested_rule=call.policy.suggest(call.tool, call.input, call.ctx))
