"""The hook registry: Python callables and settings-file command hooks, run and merged."""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from nb_agent.hooks.command import CommandHookWarning, command_hook
from nb_agent.hooks.types import (
    DEFAULT_HOOK_TIMEOUT_S,
    HOOK_EVENTS,
    AggregatedHookResult,
    HookCallback,
    HookEvent,
    HookInput,
    HookMatcher,
    HookOutput,
)

_PERMISSION_RANK = {"deny": 3, "ask": 2, "allow": 1}


def matcher_matches(matcher: str | None, tool_name: str | None) -> bool:
    if not matcher or matcher == "*":
        return True
    if tool_name is None:
        return True  # events without a tool (Stop) ignore the matcher
    if re.fullmatch(r"[\w|-]+", matcher):
        return tool_name in matcher.split("|")
    try:
        return re.fullmatch(matcher, tool_name) is not None
    except re.error:
        return matcher == tool_name


class Hooks:
    """Every hook of a session, by event."""

    def __init__(self) -> None:
        self._matchers: dict[HookEvent, list[HookMatcher]] = {event: [] for event in HOOK_EVENTS}

    def add(
        self,
        event: HookEvent,
        callback: HookCallback,
        *,
        matcher: str | None = None,
        timeout: float = DEFAULT_HOOK_TIMEOUT_S,
    ) -> None:
        """Register a Python hook (``async def hook(input: HookInput) -> HookOutput | None``)."""
        self._matchers[event].append(HookMatcher(matcher=matcher, hooks=[callback], timeout=timeout))

    @classmethod
    def from_settings(cls, hooks_section: Mapping[str, Any] | None, *, cwd: str | None = None) -> tuple[Hooks, list[str]]:
        """Build from a settings file's ``hooks`` object; returns (hooks, warnings)."""
        registry = cls()
        return registry, registry.extend_from_settings(hooks_section, cwd=cwd)

    def extend_from_settings(self, hooks_section: Mapping[str, Any] | None, *, cwd: str | None = None) -> list[str]:
        warnings: list[str] = []
        for event, entries in (hooks_section or {}).items():
            if event not in self._matchers:
                warnings.append(f"unsupported hook event {event!r} ignored")
                continue
            if not isinstance(entries, list):
                warnings.append(f"hooks.{event} must be a list; ignored")
                continue
            for entry in entries:
                if not isinstance(entry, dict):
                    warnings.append(f"hooks.{event}: an entry is not an object; ignored")
                    continue
                for hook in entry.get("hooks", []):
                    if not isinstance(hook, dict) or hook.get("type") != "command" or not hook.get("command"):
                        warnings.append(f"hooks.{event}: only {{'type': 'command', 'command': ...}} hooks are supported")
                        continue
                    timeout = float(hook.get("timeout", DEFAULT_HOOK_TIMEOUT_S))
                    self._matchers[event].append(
                        HookMatcher(
                            matcher=entry.get("matcher"),
                            hooks=[command_hook(hook["command"], timeout=timeout, cwd=cwd)],
                            timeout=timeout,
                        )
                    )
        return warnings

    def has(self, event: HookEvent) -> bool:
        return bool(self._matchers[event])

    async def run(self, event: HookEvent, hook_input: HookInput) -> AggregatedHookResult:
        """Run every matching hook concurrently and merge their answers."""
        started = time.monotonic()
        calls = [
            (callback, m.timeout)
            for m in self._matchers[event]
            if matcher_matches(m.matcher, hook_input.tool_name)
            for callback in m.hooks
        ]
        result = AggregatedHookResult()
        if not calls:
            return result
        outcomes = await asyncio.gather(*(_run_one(cb, hook_input, timeout) for cb, timeout in calls))
        for outcome in outcomes:
            _merge(result, outcome, event)
        result.elapsed_s = time.monotonic() - started
        return result


async def _run_one(callback: HookCallback, hook_input: HookInput, timeout: float) -> HookOutput | str | None:
    name = getattr(callback, "__qualname__", repr(callback))
    try:
        # Command hooks enforce their own timeout (and kill the process); this one
        # bounds Python hooks, with a little slack so the command's own message wins.
        return await asyncio.wait_for(callback(hook_input), timeout + 1.0)
    except asyncio.TimeoutError:
        return f"hook {name} timed out after {timeout:g}s"
    except CommandHookWarning as exc:
        return str(exc)
    except Exception as exc:  # a user's hook must never break the run
        return f"hook {name} failed: {type(exc).__name__}: {exc}"


def _merge(result: AggregatedHookResult, outcome: HookOutput | str | None, event: HookEvent) -> None:
    if outcome is None:
        return
    if isinstance(outcome, str):
        result.warnings.append(outcome)
        return
    if outcome.blocking_error:
        result.blocking_errors.append(outcome.blocking_error)
        if event == "PreToolUse" and outcome.permission_decision is None:
            outcome = replace(outcome, permission_decision="deny")
    if not outcome.continue_:
        result.prevent_continuation = True
        result.stop_reason = result.stop_reason or outcome.stop_reason
    decision = outcome.permission_decision
    if decision and _PERMISSION_RANK[decision] > _PERMISSION_RANK.get(result.permission_decision or "", 0):
        result.permission_decision = decision
        result.permission_decision_reason = outcome.permission_decision_reason or outcome.blocking_error
    if outcome.updated_input is not None:
        result.updated_input = outcome.updated_input
    if outcome.updated_output is not None:
        result.updated_output = outcome.updated_output
    if outcome.additional_context:
        result.additional_contexts.append(outcome.additional_context)
    if outcome.system_message:
        result.system_messages.append(outcome.system_message)
