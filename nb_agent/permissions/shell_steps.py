"""The shell family's steps in the permission chain (Bash).

- 5. the shell guard: a file a Read deny rule denies -> deny; a protected file written or a
  denied tree read -> an ask no mode skips (:mod:`nb_agent.permissions.shell_guard`);
- 8. an allow rule names a program, not what it may read or change: what the command's
  readers read stays within Read's scope, and what a program that changes the files it
  names (``mv``, ``cp``, ``rm``…) names stays within the working directories;
- 9. every simple command covered by an allow rule or read-only, and what the reading
  ones read within Read's scope (:mod:`nb_agent.permissions.fast_path`); git only in the
  project's repository root. An ask here is held: the sandbox may still vouch (step 10).
"""

from __future__ import annotations

from nb_agent.permissions.fast_path import shell_fast_path
from nb_agent.permissions.paths import candidate_paths, is_within
from nb_agent.permissions.rules import rule_applies_to_tool
from nb_agent.permissions.shell_guard import shell_guard
from nb_agent.permissions.steps import PermissionCall, allow_rule
from nb_agent.permissions.types import PermissionAllow, PermissionAsk, PermissionDecision, PermissionDeny
from nb_agent.shell.command_parts import analyse_command
from nb_agent.shell.programs import program_spec
from nb_agent.shell.read_scope import bash_read_plan

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
        if (changed := _changed_outside(call)) is not None:
            message = f"{call.tool.name}: {changed}, outside the working directories; the rule {rule.text} covers its changes within them only."
            return PermissionAsk(message=message, suggested_rule=call.policy.suggest(call.tool, call.input, call.ctx))
        held = _fast_path(call, known_reads_only=True)
        if isinstance(held, (PermissionAsk, PermissionDeny)):
            return held
    return await allow_rule(call)


def _changed_outside(call: PermissionCall) -> str | None:
    """What a program that changes the files it names (``mv``, ``cp``, ``rm``…) would change
    outside the working directories, in words; ``None`` when nothing is (as Edit and Write
    ask there whatever the rules say, a ``Bash(mv:*)`` rule does not reach there either)."""
    scope = call.policy.read_scope(call.ctx)
    directories = call.policy.working_directories(call.ctx)
    analysis = analyse_command(call.content)
    for part in analysis.parts:
        argv = part.unwrapped.layers[-1]
        if not argv or not argv[0].is_literal or not program_spec(argv[0].value).changes_operands:
            continue
        plan = bash_read_plan(analysis, cwd=scope.cwd, project_dir=scope.anchor, home=scope.home, parts=[part])
        if plan.unknown is not None:  # `mv data.csv $OUT`, `{/elsewhere,x}`: where it goes is known only when it runs
            return f"{argv[0].value} names a path known only when it runs ({plan.unknown})"
        for named in plan.reads:
            if not is_within(named.path, directories):
                return f"{argv[0].value} would change {candidate_paths(named.path)[0]}"
    return None


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
