"""The hook registry: Python callables and settings-file command hooks, run and merged."""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from nb_agent.abort import AbortSignal
from nb_agent.errors import AbortError, ConfigurationError
from nb_agent.hooks.command import CommandHookWarning, kill_process_group, started_groups
from nb_agent.hooks.prompt_hook import ModelQuery
from nb_agent.hooks.settings_hooks import settings_hook
from nb_agent.hooks.types import (
    DEFAULT_HOOK_TIMEOUT_S,
    HOOK_EVENTS,
    AggregatedHookResult,
    HookCallback,
    HookEvent,
    HookInfo,
    HookInput,
    HookMatcher,
    HookOutput,
    HookSource,
)

_PERMISSION_RANK = {"deny": 3, "ask": 2, "allow": 1}
_SIMPLE_MATCHER = re.compile(r"[A-Za-z0-9_|]+")


def matcher_matches(matcher: str | None, query: str | None) -> bool:
    """Claude Code's matcher rules: empty or ``*`` match all; a plain name or ``A|B`` list
    matches exactly; anything else is a regular expression searched in ``query`` (an
    invalid one matches nothing). Events without a match query ignore the matcher."""
    if not matcher or matcher == "*" or query is None:
        return True
    if _SIMPLE_MATCHER.fullmatch(matcher):
        return query in (part.strip() for part in matcher.split("|"))
    try:
        return re.search(matcher, query) is not None
    except re.error:
        return False


def _callable_name(callback: HookCallback) -> str:
    return getattr(callback, "__qualname__", None) or repr(callback)


class Hooks:
    """Every hook of a session, by event."""

    def __init__(self) -> None:
        self._matchers: dict[HookEvent, list[HookMatcher]] = {event: [] for event in HOOK_EVENTS}
        self.model_query: ModelQuery | None = None
        """How ``prompt`` hooks ask a model: the session's engine sets it."""

    def add(
        self,
        event: HookEvent,
        callback: HookCallback,
        *,
        matcher: str | None = None,
        timeout: float = DEFAULT_HOOK_TIMEOUT_S,
    ) -> None:
        """Register a Python hook (``async def hook(input: HookInput) -> HookOutput | None``)
        for any event of :data:`~nb_agent.hooks.types.HOOK_EVENTS`."""
        if event not in self._matchers:
            raise ConfigurationError(f"unknown hook event {event!r}; one of: {', '.join(HOOK_EVENTS)}")
        self._matchers[event].append(
            HookMatcher(matcher=matcher, hooks=[callback], timeout=timeout, source="python", description=_callable_name(callback))
        )

    @classmethod
    def from_settings(
        cls, hooks_section: Mapping[str, Any] | None, *, project_dir: str | None = None, source: HookSource = "user", path: str | None = None
    ) -> tuple[Hooks, list[str]]:
        """Build from a settings file's ``hooks`` object; returns (hooks, warnings)."""
        registry = cls()
        return registry, registry.extend_from_settings(hooks_section, project_dir=project_dir, source=source, path=path)

    def extend_from_settings(
        self,
        hooks_section: Mapping[str, Any] | None,
        *,
        project_dir: str | None = None,
        source: HookSource = "user",
        path: str | None = None,
    ) -> list[str]:
        """Add one settings file's hooks; returns warnings, one per unsupported event or
        hook type (named), never one per entry."""
        where = path or f"{source} settings"
        warnings: list[str] = []

        def warn(text: str) -> None:
            if text not in warnings:
                warnings.append(text)

        for event, entries in (hooks_section or {}).items():
            if event not in self._matchers:
                warn(f"{where}: hook event {event!r} is not supported by nb_agent; its hooks are ignored")
                continue
            if not isinstance(entries, list):
                warn(f"{where}: hooks.{event} must be a list; ignored")
                continue
            for entry in entries:
                self._add_entry(event, entry, warn=warn, where=where, project_dir=project_dir, source=source, path=path)
        return warnings

    def _add_entry(self, event: HookEvent, entry: Any, *, warn: Any, where: str, project_dir: str | None, source: HookSource, path: str | None) -> None:
        if isinstance(entry, dict) and "hooks" not in entry and "command" in entry:
            flat = json.dumps({"command": entry["command"]})
            warn(
                f"{where}: hooks.{event}: an entry has no 'hooks' list (the older flat form {flat}); "
                'write it as {"hooks": [{"type": "command", "command": ...}]}; ignored'
            )
            return
        if not isinstance(entry, dict) or not isinstance(entry.get("hooks"), list):
            warn(f"{where}: hooks.{event}: an entry is not an object with a 'hooks' list; ignored")
            return
        matcher = entry.get("matcher")
        if matcher is not None and not isinstance(matcher, str):
            warn(f"{where}: hooks.{event}: matcher must be a string; entry ignored")
            return
        if matcher and not _SIMPLE_MATCHER.fullmatch(matcher) and matcher != "*":
            try:
                re.compile(matcher)
            except re.error as exc:
                warn(f"{where}: hooks.{event}: matcher {matcher!r} is not a valid regular expression ({exc}); it matches nothing")
        for hook in entry.get("hooks", []):
            made = settings_hook(hook, project_dir=project_dir, model_query=lambda: self.model_query, warn=lambda text: warn(f"{where}: hooks.{event}: {text}"))
            if made is not None:
                self._matchers[event].append(
                    HookMatcher(matcher=matcher, hooks=[made.callback], timeout=made.timeout, source=source, path=path, description=made.description)
                )

    def has(self, event: HookEvent) -> bool:
        return bool(self._matchers[event])

    def describe(self) -> list[HookInfo]:
        """Every hook in force, by event, in the order they were added."""
        return [
            HookInfo(event=event, matcher=m.matcher, source=m.source, path=m.path, description=m.description, timeout=m.timeout)
            for event, matchers in self._matchers.items()
            for m in matchers
        ]

    async def run(
        self,
        event: HookEvent,
        hook_input: HookInput,
        *,
        timeout_cap: float | None = None,
        abort_signal: AbortSignal | None = None,
    ) -> AggregatedHookResult:
        """Run every matching hook concurrently and merge their answers.

        ``timeout_cap`` bounds every hook's timeout (SessionEnd at shutdown). With
        ``abort_signal``, Stop cancels the hooks at once (a command hook's whole process
        group is killed) and raises ``AbortError``: nothing waits for a hook's timeout
        after the user pressed Stop (seed 000 §9.4)."""
        started = time.monotonic()
        query = hook_input.match_query
        calls = [
            (callback, m.timeout if timeout_cap is None else min(m.timeout, timeout_cap))
            for m in self._matchers[event]
            if matcher_matches(m.matcher, query)
            for callback in m.hooks
        ]
        result = AggregatedHookResult()
        if not calls:
            return result
        groups: set[int] = set()
        token = started_groups.set(groups)  # the hooks' tasks copy this context
        try:
            gathered = asyncio.gather(*(_run_one(cb, hook_input, timeout, capped=timeout_cap is not None) for cb, timeout in calls))
        finally:
            started_groups.reset(token)
        outcomes = await _unless_aborted(gathered, abort_signal, groups)
        for outcome in outcomes:
            _merge(result, outcome, event)
        result.ran = len(calls)
        result.elapsed_s = time.monotonic() - started
        return result


async def _unless_aborted(gathered: asyncio.Future[list[Any]], abort_signal: AbortSignal | None, groups: set[int]) -> list[Any]:
    """``gathered``'s result, unless Stop comes first; on Stop or on cancellation the hooks'
    process groups are killed first (so nothing waits on their pipes), then their tasks
    are cancelled, before this returns."""
    if abort_signal is None:
        try:
            return await gathered
        except BaseException:
            await _cancel(gathered, groups)
            raise
    loop = asyncio.get_running_loop()
    stopped = loop.create_future()

    def on_abort(reason: str) -> None:  # any thread
        loop.call_soon_threadsafe(lambda: stopped.done() or stopped.set_result(reason))

    remove = abort_signal.add_callback(on_abort)
    try:
        await asyncio.wait({gathered, stopped}, return_when=asyncio.FIRST_COMPLETED)
        if gathered.done():
            return gathered.result()
    except BaseException:
        await _cancel(gathered, groups)
        raise
    finally:
        remove()
    await _cancel(gathered, groups)
    raise AbortError(abort_signal.reason or "Interrupted by user")


async def _cancel(gathered: asyncio.Future[list[Any]], groups: set[int]) -> None:
    for pgid in groups:
        kill_process_group(pgid)
    gathered.cancel()
    await asyncio.gather(gathered, return_exceptions=True)


async def _run_one(callback: HookCallback, hook_input: HookInput, timeout: float, *, capped: bool = False) -> HookOutput | str | None:
    name = _callable_name(callback)
    try:
        # Command hooks enforce their own timeout (and kill the process); this one bounds
        # Python hooks, and capped command hooks, with a little slack so the command's
        # own message wins when it can.
        return await asyncio.wait_for(callback(hook_input), timeout + (0.2 if capped else 1.0))
    except asyncio.TimeoutError:
        return f"hook {name} timed out after {timeout:g}s"
    except CommandHookWarning as exc:
        return str(exc)
    except Exception as exc:  # noqa: BLE001 - a user's hook must never break the run
        return f"hook {name} failed: {type(exc).__name__}: {exc}"


def _merge(result: AggregatedHookResult, outcome: HookOutput | str | None, event: HookEvent) -> None:
    if outcome is None:
        return
    if isinstance(outcome, str):
        result.warnings.append(outcome)
        return
    if outcome.blocking_error:
        result.blocking_errors.append(outcome.blocking_error)
        if event in ("PreToolUse", "PermissionRequest") and outcome.permission_decision is None:
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
    if outcome.updated_permissions:
        result.updated_permissions.extend(outcome.updated_permissions)
    if outcome.interrupt and outcome.permission_decision == "deny":
        result.interrupt = True
    if outcome.additional_context:
        result.additional_contexts.append(outcome.additional_context)
        if not outcome.suppress_output:
            result.visible_contexts.append(outcome.additional_context)
    if outcome.system_message:
        result.system_messages.append(outcome.system_message)
