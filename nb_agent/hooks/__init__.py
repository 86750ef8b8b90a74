"""Hooks: PreToolUse / PostToolUse / Stop as Python callables or settings-file commands."""

from nb_agent.hooks.registry import Hooks
from nb_agent.hooks.types import AggregatedHookResult, HookCallback, HookEvent, HookInput, HookOutput

__all__ = ["AggregatedHookResult", "HookCallback", "HookEvent", "HookInput", "HookOutput", "Hooks"]
