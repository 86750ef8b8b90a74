"""The file families' steps in the permission chain: where edits may go, what
``acceptEdits`` allows, and reads outside the working directories."""

from __future__ import annotations

from nb_agent.permissions.paths import candidate_paths, is_within
from nb_agent.permissions.protected import protected_reason
from nb_agent.permissions.steps import PermissionCall, read_only_allows
from nb_agent.permissions.types import PermissionAsk, PermissionDecision

__all__ = ["accept_edits_mode", "read_within_directories", "write_safety"]


async def write_safety(call: PermissionCall) -> PermissionDecision | None:
    """5. Asks that no mode, allow rule or hook skips: writing a protected file (agent
    configuration, shell/IPython startup files, ``.ssh/``, site-packages…; see
    :mod:`nb_agent.permissions.protected`) or writing outside the working directories."""
    path = call.policy.tool_path(call.tool, call.input, call.ctx)
    if path is None:
        return None
    shown = candidate_paths(path)[0]
    if reason := protected_reason(path):
        return PermissionAsk(
            message=f"{call.tool.name} wants to change {shown}: {reason}. Changing it always needs approval.",
            hook_may_allow=False,
        )
    directories = call.policy.working_directories(call.ctx)
    if not is_within(path, directories):
        listed = ", ".join(str(d) for d in directories)
        return PermissionAsk(
            message=(
                f"{call.tool.name} wants to write {shown}, outside the working directories ({listed}). "
                "Writes there always need approval; add the directory to additionalDirectories to allow them."
            ),
            hook_may_allow=False,
        )
    return None


async def accept_edits_mode(call: PermissionCall) -> PermissionDecision | None:
    """7. ``acceptEdits`` allows a file edit (after ``bypassPermissions``)."""
    return call.allow("acceptEdits mode") if call.mode == "acceptEdits" else None


async def read_within_directories(call: PermissionCall) -> PermissionDecision | None:
    """9. A read-only file read runs when it stays within the working directories."""
    if call.read_only and not call.tool.is_mcp and not call.tool.reaches_network:
        path = call.policy.tool_path(call.tool, call.input, call.ctx)
        if path is not None and not is_within(path, call.policy.working_directories(call.ctx)):
            return PermissionAsk(
                message=f"{call.tool.name} wants to read {candidate_paths(path)[0]}, outside the working directories.",
                suggested_rule=call.policy.suggest(call.tool, call.input, call.ctx),
            )
    return await read_only_allows(call)
