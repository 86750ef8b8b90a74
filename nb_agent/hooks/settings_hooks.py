"""One hook of a settings file (``{"type": ..., ...}``) into a callback: the ``command``,
``prompt`` and ``http`` types, with the fields Claude Code documents."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from nb_agent.errors import ConfigurationError
from nb_agent.hooks.command import command_hook
from nb_agent.hooks.http_hook import DEFAULT_HTTP_HOOK_TIMEOUT_S, http_hook
from nb_agent.hooks.prompt_hook import DEFAULT_PROMPT_HOOK_TIMEOUT_S, ModelQuery, prompt_hook
from nb_agent.hooks.types import DEFAULT_HOOK_TIMEOUT_S, HookCallback

__all__ = ["SUPPORTED_HOOK_TYPES", "SettingsHook", "settings_hook"]

SUPPORTED_HOOK_TYPES = ("command", "prompt", "http")
_DEFAULT_TIMEOUTS = {"command": DEFAULT_HOOK_TIMEOUT_S, "prompt": DEFAULT_PROMPT_HOOK_TIMEOUT_S, "http": DEFAULT_HTTP_HOOK_TIMEOUT_S}
_MAIN_FIELD = {"command": "command", "prompt": "prompt", "http": "url"}


@dataclass(frozen=True, kw_only=True)
class SettingsHook:
    callback: HookCallback
    timeout: float
    description: str
    """What ``%agent hooks`` shows: the command, ``prompt: …`` or ``http: URL``."""


def settings_hook(
    hook: Any, *, project_dir: str | None, model_query: Callable[[], ModelQuery | None], warn: Callable[[str], None]
) -> SettingsHook | None:
    """The hook ``hook`` describes, or None (with a warning through ``warn``)."""
    kind = hook.get("type") if isinstance(hook, dict) else None
    if kind not in SUPPORTED_HOOK_TYPES:
        warn(f"hook type {kind!r} is not supported by nb_agent (only {', '.join(SUPPORTED_HOOK_TYPES)}); ignored")
        return None
    main = hook.get(_MAIN_FIELD[kind])
    if not isinstance(main, str) or not main.strip():
        warn(f"a {kind} hook has no '{_MAIN_FIELD[kind]}'; ignored")
        return None
    default = _DEFAULT_TIMEOUTS[kind]
    try:
        timeout = float(hook.get("timeout", default))
    except (TypeError, ValueError):
        warn(f"timeout {hook.get('timeout')!r} is not a number; using {default:g}s")
        timeout = default
    try:
        if kind == "command":
            return SettingsHook(callback=command_hook(main, timeout=timeout, project_dir=project_dir), timeout=timeout, description=main)
        if kind == "prompt":
            model = hook.get("model")
            callback = prompt_hook(main, model=model if isinstance(model, str) and model.strip() else None, ask=model_query)
            return SettingsHook(callback=callback, timeout=timeout, description=f"prompt: {main}")
        headers = hook.get("headers") or {}
        allowed = hook.get("allowedEnvVars") or []
        if not isinstance(headers, dict) or not all(isinstance(v, str) for v in headers.values()):
            raise ConfigurationError("headers must be an object of strings")
        if not isinstance(allowed, list) or not all(isinstance(v, str) for v in allowed):
            raise ConfigurationError("allowedEnvVars must be a list of variable names")
        callback = http_hook(main, headers=headers, allowed_env_vars=allowed, timeout=timeout)
        return SettingsHook(callback=callback, timeout=timeout, description=f"http: {main}")
    except ConfigurationError as exc:
        warn(f"a {kind} hook is not usable ({exc}); ignored")
        return None
