"""Hooks: every Claude Code hook event, as Python callables or settings-file commands.

Events are listed in :data:`~nb_agent.hooks.types.HOOK_EVENTS`; ``engine.hooks.add(EVENT, fn)``
registers a Python hook, and the settings files' ``hooks`` objects add command hooks.
"""

from nb_agent.hooks.registry import Hooks
from nb_agent.hooks.types import (
    HOOK_EVENTS,
    AggregatedHookResult,
    HookCallback,
    HookEvent,
    HookInfo,
    HookInput,
    HookOutput,
    SubagentInfo,
)

__all__ = [
    "HOOK_EVENTS",
    "AggregatedHookResult",
    "HookCallback",
    "HookEvent",
    "HookInfo",
    "HookInput",
    "HookOutput",
    "Hooks",
    "SubagentInfo",
]
