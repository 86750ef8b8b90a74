"""Permission decisions, rules and modes (SPEC §7)."""

from nb_agent.permissions.policy import RuleBasedPolicy, is_protected_config_path
from nb_agent.permissions.rules import (
    PermissionRule,
    RuleBehavior,
    RuleSource,
    first_matching_rule,
    parse_rule,
    rule_matches,
    suggest_rule,
)
from nb_agent.permissions.settings import Settings, SettingsSource, load_settings
from nb_agent.permissions.types import (
    CanUseTool,
    PermissionAllow,
    PermissionAsk,
    PermissionDecision,
    PermissionDenialRecord,
    PermissionDeny,
    PermissionMode,
    PermissionPolicy,
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
    "PermissionPolicy",
    "PermissionRequest",
    "PermissionResult",
    "PermissionRule",
    "RuleBasedPolicy",
    "RuleBehavior",
    "RuleSource",
    "Settings",
    "SettingsSource",
    "first_matching_rule",
    "is_protected_config_path",
    "load_settings",
    "parse_rule",
    "rule_matches",
    "suggest_rule",
]
