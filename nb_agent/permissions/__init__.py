"""Permission decisions, rules and modes (SPEC §7)."""

from nb_agent.permissions.types import (
    CanUseTool,
    PermissionAllow,
    PermissionAsk,
    PermissionDecision,
    PermissionDeny,
    PermissionDenialRecord,
    PermissionMode,
    PermissionRequest,
    PermissionResult,
)

__all__ = [
    "CanUseTool",
    "PermissionAllow",
    "PermissionAsk",
    "PermissionDecision",
    "PermissionDeny",
    "PermissionDenialRecord",
    "PermissionMode",
    "PermissionRequest",
    "PermissionResult",
]
