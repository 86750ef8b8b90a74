"""The permission chain: the ordered steps a call goes through, first answer wins.

1. deny rules -> deny (in every mode)
2. plan mode and a tool that is not read-only -> deny
3. ask rules -> ask (in every mode, ``bypassPermissions`` included)
4. the tool's own ``check_permissions``: deny -> deny; ask is kept for step 6
5. the family's safety checks, immune to modes, allow rules and hooks (file edits:
   :func:`~nb_agent.permissions.file_steps.write_safety`; Bash: the shell guard)
6. the tool's ask -> ask (``bypassPermissions`` answers it, except for a tool that
   ``requires_user_interaction``)
7. ``bypassPermissions`` -> allow; ``acceptEdits`` and a file edit -> allow
8. allow rules -> allow (Bash: held to Read's scope)
9. read-only -> allow (file reads: within the working directories; Bash: the fast path)
10. the tool vouches for the call (``auto_allow_reason``) -> allow
11. otherwise ask, with the rule an "Always allow" answer would add

A family (:func:`~nb_agent.permissions.rules.tool_family`, which a tool may declare with
``permission_family``) replaces or adds the steps it needs; the generic chain has no
family branch.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from nb_agent.permissions.file_steps import accept_edits_mode, read_within_directories, write_safety
from nb_agent.permissions.rules import ToolFamily
from nb_agent.permissions.shell_steps import shell_allow_rule, shell_guard_step, shell_read_only
from nb_agent.permissions.steps import (
    PermissionCall,
    Step,
    allow_rule,
    ask_rule,
    ask_the_user,
    bypass_mode,
    deny_rule,
    plan_mode,
    read_only_allows,
    tool_asks,
    tool_check,
    tool_vouches,
)
from nb_agent.permissions.types import PermissionDecision

__all__ = ["FamilySteps", "chain_for", "run_chain"]


@dataclass(frozen=True, kw_only=True)
class FamilySteps:
    """What a tool family puts into the chain."""

    safety: Step | None = None
    """Step 5, asks and denials no mode skips."""
    mode: Step | None = None
    """Step 7, after ``bypassPermissions``: a mode that allows this family."""
    allow_rule: Step = allow_rule
    read_only: Step = read_only_allows


_FAMILIES: Mapping[ToolFamily, FamilySteps] = MappingProxyType({
    "shell": FamilySteps(safety=shell_guard_step, allow_rule=shell_allow_rule, read_only=shell_read_only),
    "file_edit": FamilySteps(safety=write_safety, mode=accept_edits_mode),
    "file_read": FamilySteps(read_only=read_within_directories),
})
_GENERIC = FamilySteps()


def chain_for(family: ToolFamily) -> tuple[Step, ...]:
    """The steps a call of a tool in ``family`` goes through, in order."""
    own = _FAMILIES.get(family, _GENERIC)
    steps = (
        deny_rule, plan_mode, ask_rule, tool_check, own.safety, tool_asks,
        bypass_mode, own.mode, own.allow_rule, own.read_only, tool_vouches,
    )
    return tuple(step for step in steps if step is not None)


async def run_chain(call: PermissionCall) -> PermissionDecision:
    """The first step's decision; the user is asked when no step decides."""
    for step in chain_for(call.family):
        if (decision := await step(call)) is not None:
            return decision
    return await ask_the_user(call)
