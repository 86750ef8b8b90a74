"""PermissionRequest hooks: a hook answers an ask on the user's behalf, within limits.

The event fires only when the permission chain has decided to *ask* (a deny rule has
already denied, so a hook never sees those calls). What a hook may do then:

- ``deny`` (with ``message``, and ``interrupt`` to stop the run): always applies.
- ``allow``: answers an ordinary ask only. The asks only the user may answer (a protected
  file, a write outside the working directories, an ``ask`` rule, the agent's questions
  and plans; ``PermissionAsk.hook_may_allow`` is False) are still put to the user.
- ``updatedInput`` with ``allow``: the new input is decided again by the whole chain; a
  deny rule denies it, and an ask only the user may answer goes to the user.
- ``updatedPermissions``: ``addRules`` entries become session rules (never written to a
  settings file); other kinds are not applied and say so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from nb_agent.hooks.types import AggregatedHookResult
from nb_agent.permissions.types import PermissionAllow, PermissionAsk, PermissionDecision, PermissionDeny

__all__ = ["HookAnswer", "hook_answer", "permission_suggestions", "session_rules"]

_RULE = re.compile(r"^\s*([^\s(]+)\s*(?:\((.*)\))?\s*$", re.DOTALL)


def permission_suggestions(ask: PermissionAsk) -> list[dict[str, Any]] | None:
    """The ``permission_suggestions`` of the hook input: the rule "Always allow" would add."""
    match = _RULE.match(ask.suggested_rule or "")
    if match is None:
        return None
    rule: dict[str, Any] = {"toolName": match.group(1)}
    if match.group(2) is not None:
        rule["ruleContent"] = match.group(2)
    return [{"type": "addRules", "rules": [rule], "behavior": "allow", "destination": "session"}]


def session_rules(updates: list[dict[str, Any]]) -> tuple[list[tuple[str, str]], list[str]]:
    """``updatedPermissions`` → ``(behavior, rule text)`` pairs to add, and warnings for
    what is not applied."""
    rules: list[tuple[str, str]] = []
    warnings: list[str] = []
    for update in updates:
        kind, behavior = update.get("type"), update.get("behavior", "allow")
        if kind != "addRules" or behavior not in ("allow", "deny", "ask") or not isinstance(update.get("rules"), list):
            warnings.append(f"PermissionRequest hook: updatedPermissions entry {kind!r} is not applied (only addRules, as session rules)")
            continue
        for rule in update["rules"]:
            name = rule.get("toolName") if isinstance(rule, dict) else None
            if not isinstance(name, str) or not name.strip():
                warnings.append("PermissionRequest hook: a rule without toolName is not applied")
                continue
            content = rule.get("ruleContent")
            rules.append((behavior, f"{name}({content})" if isinstance(content, str) else name))
    return rules, warnings


@dataclass(kw_only=True)
class HookAnswer:
    """What the hooks made of one ask."""

    decision: PermissionDecision | None = None
    """Allow or deny on the user's behalf; None: ask the user (as without hooks)."""
    updated_input: dict[str, Any] | None = None
    """With an allow: the input the hook wants run instead (to be decided again)."""
    notes: list[str] = field(default_factory=list)
    """Why a hook's answer was not taken, for the user."""


def hook_answer(result: AggregatedHookResult, ask: PermissionAsk, *, tool_name: str) -> HookAnswer:
    """The hooks' merged answer to ``ask`` (deny from any hook beats allow from another)."""
    reason = result.permission_decision_reason or "; ".join(result.blocking_errors) or "no reason given"
    if result.permission_decision == "deny":
        return HookAnswer(decision=PermissionDeny(message=f"A PermissionRequest hook denied {tool_name}: {reason}", interrupt=result.interrupt))
    if result.permission_decision != "allow":
        return HookAnswer()
    if not ask.hook_may_allow:
        note = f"A PermissionRequest hook allowed {tool_name}, but only you can answer this request ({ask.message})"
        return HookAnswer(notes=[note])
    decision = PermissionAllow(reason=f"PermissionRequest hook{': ' + result.permission_decision_reason if result.permission_decision_reason else ''}")
    return HookAnswer(decision=decision, updated_input=result.updated_input)
