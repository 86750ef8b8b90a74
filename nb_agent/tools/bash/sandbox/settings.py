"""Claude Code's ``sandbox`` settings, merged from the settings files (SPEC §8, seed 003 §3.5).

The user's own file (``~/.claude/settings.json``) is trusted in full. A project folder's
files (``.claude/settings.json``, ``.claude/settings.local.json``) come with the folder,
which may be hostile, so they may only make the sandbox *stricter*: turn it on, turn
auto-allow or unsandboxed fallback off, deny more paths. A sandbox only a project turned on
does not auto-allow commands (``autoAllowBashIfSandboxed`` defaults to true: that would be a
permission the folder gives itself), unless the user's own file asks for auto-allow. This holds in a trusted folder
too (:mod:`nb_agent.folder_trust`): the sandbox is what contains the read-only
classifier's mistakes, and widening it is the user's own decision, in their own file.
Anything that would loosen it from a project file is ignored with a warning.

Paths use Claude Code's prefixes: ``//abs`` (filesystem root), ``~/`` (home), ``/rel``
(the directory the settings file's project is in), ``./rel`` or ``rel`` (the project).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from nb_agent.permissions.settings import SettingsSource

__all__ = ["NetworkSettings", "SandboxSettings", "merge_sandbox_settings", "resolve_sandbox_path"]


@dataclass(frozen=True, kw_only=True)
class NetworkSettings:
    """``sandbox.network``: what a sandboxed command may reach."""

    allowed_domains: tuple[str, ...] = ()
    """Hosts (``example.com``, ``*.example.com``) reachable through nb_agent's filtering proxy."""
    allow_local_binding: bool = False
    """macOS: let a sandboxed server listen on localhost. (Linux: a private loopback always works.)"""
    allow_all: bool = False
    """nb_agent's own key ``sandbox.network.allowAll``: no network isolation at all."""
    allow_unix_sockets: tuple[Path, ...] = ()
    """macOS: Unix sockets a sandboxed command may connect to. Linux cannot allow one socket
    by path (seccomp does not see a ``connect()``'s address): listed there, they are reported
    as not allowed and ``allowAllUnixSockets`` is the way to reach them."""
    allow_all_unix_sockets: bool = False
    """Lift the block on Unix sockets (:mod:`.seccomp`): every socket in the sandbox's view is reachable."""


@dataclass(frozen=True, kw_only=True)
class SandboxSettings:
    """The merged ``sandbox`` section (defaults are Claude Code's)."""

    enabled: bool = False
    """Sandbox *every* Bash command. Commands the read-only classifier allows are sandboxed regardless."""
    auto_allow_bash_if_sandboxed: bool = True
    """With ``enabled``, a command that will run sandboxed runs without asking."""
    allow_unsandboxed_commands: bool = True
    """Whether ``dangerouslyDisableSandbox`` (with its own approval) is honoured at all."""
    excluded_commands: tuple[str, ...] = ()
    """Command prefixes that never run sandboxed under ``enabled`` (they go through approval)."""
    network: NetworkSettings = field(default_factory=NetworkSettings)
    allow_write: tuple[Path, ...] = ()
    deny_write: tuple[Path, ...] = ()
    deny_read: tuple[Path, ...] = ()


def resolve_sandbox_path(text: str, *, project_dir: Path, home: Path) -> Path:
    """A settings path with Claude Code's prefixes, made absolute (globs are not expanded)."""
    if text.startswith("//"):
        path = Path("/" + text[2:])
    elif text == "~" or text.startswith("~/"):
        path = home / text[2:]
    elif text.startswith("/"):
        path = project_dir / text[1:]
    else:
        path = project_dir / text.removeprefix("./")
    return Path(os.path.normpath(path))


def merge_sandbox_settings(
    sections: Mapping[SettingsSource, Any],
    *,
    project_dir: Path,
    home: Path,
    trusted_sources: frozenset[str] = frozenset({"user"}),
    rule_paths: Mapping[str, tuple[Path, ...]] | None = None,
) -> tuple[SandboxSettings, list[str]]:
    """Merge the raw ``sandbox`` objects of each settings source (lowest precedence first).

    ``rule_paths`` adds paths from permission rules (Claude Code merges ``Edit(...)`` allow
    rules into ``allowWrite`` and ``Read(...)``/``Edit(...)`` deny rules into ``denyRead`` /
    ``denyWrite``); its ``allow_write`` entry must hold trusted sources' rules only.
    Returns the settings and warnings (bad values, loosening attempts from a project file).
    """
    merged = SandboxSettings()
    warnings: list[str] = []
    for source, raw in sections.items():
        if raw is None:
            continue
        if not isinstance(raw, dict):
            warnings.append(f"{source} settings: 'sandbox' must be an object; ignored")
            continue
        merged = _merge_one(merged, raw, source=source, trusted=source in trusted_sources, project_dir=project_dir, home=home, warnings=warnings)
    merged = _project_enabled_sandbox_asks(merged, sections, trusted_sources=trusted_sources, warnings=warnings)
    if rule_paths:
        merged = replace(
            merged,
            allow_write=_union(merged.allow_write, rule_paths.get("allow_write", ())),
            deny_write=_union(merged.deny_write, rule_paths.get("deny_write", ())),
            deny_read=_union(merged.deny_read, rule_paths.get("deny_read", ())),
        )
    return merged, warnings


def _project_enabled_sandbox_asks(
    merged: SandboxSettings, sections: Mapping[SettingsSource, Any], *, trusted_sources: frozenset[str], warnings: list[str]
) -> SandboxSettings:
    """A sandbox only a project file turned on does not make commands run unasked.

    ``autoAllowBashIfSandboxed`` defaults to true, so ``"enabled": true`` from a folder's
    own file would otherwise let every command the model writes run without asking (inside
    the sandbox): a permission a folder gives itself. Auto-allow then needs the user's own
    file to enable the sandbox or to say ``autoAllowBashIfSandboxed: true``."""
    if not merged.enabled or not merged.auto_allow_bash_if_sandboxed:
        return merged
    for source, raw in sections.items():
        trusted = source in trusted_sources
        if trusted and isinstance(raw, dict) and (raw.get("enabled") is True or raw.get("autoAllowBashIfSandboxed") is True):
            return merged
    warnings.append(
        "project settings turn the sandbox on: sandboxed commands still ask (only your user settings can let them "
        "run unasked, with sandbox.enabled or autoAllowBashIfSandboxed)"
    )
    return replace(merged, auto_allow_bash_if_sandboxed=False)


def _merge_one(
    merged: SandboxSettings, raw: dict[str, Any], *, source: str, trusted: bool, project_dir: Path, home: Path, warnings: list[str]
) -> SandboxSettings:
    def flag(key: str, attr: str, *, strict_value: bool) -> bool | None:
        value = raw.get(key)
        if value is None:
            return None
        if not isinstance(value, bool):
            warnings.append(f"{source} settings: sandbox.{key} must be true or false; ignored")
            return None
        if value != strict_value and not trusted and value != getattr(merged, attr):
            warnings.append(f"{source} settings: sandbox.{key}={str(value).lower()} would loosen the sandbox; ignored (only your user settings can)")
            return None
        return value

    changes: dict[str, Any] = {}
    for key, attr, strict in (
        ("enabled", "enabled", True),
        ("autoAllowBashIfSandboxed", "auto_allow_bash_if_sandboxed", False),
        ("allowUnsandboxedCommands", "allow_unsandboxed_commands", False),
    ):
        value = flag(key, attr, strict_value=strict)
        if value is not None:
            changes[attr] = value
    excluded = _strings(raw.get("excludedCommands"), f"{source} settings: sandbox.excludedCommands", warnings)
    if excluded and not trusted:
        warnings.append(f"{source} settings: sandbox.excludedCommands would loosen the sandbox; ignored (only your user settings can)")
    elif excluded:
        changes["excluded_commands"] = tuple(dict.fromkeys((*merged.excluded_commands, *excluded)))
    changes["network"] = _merge_network(merged.network, raw.get("network"), source=source, trusted=trusted, warnings=warnings)
    filesystem = raw.get("filesystem") or {}
    if not isinstance(filesystem, dict):
        warnings.append(f"{source} settings: sandbox.filesystem must be an object; ignored")
        filesystem = {}

    def paths(key: str) -> tuple[Path, ...]:
        texts = _strings(filesystem.get(key), f"{source} settings: sandbox.filesystem.{key}", warnings)
        return tuple(resolve_sandbox_path(t, project_dir=project_dir, home=home) for t in texts)

    allow_write = paths("allowWrite")
    if allow_write and not trusted:
        warnings.append(f"{source} settings: sandbox.filesystem.allowWrite would loosen the sandbox; ignored (only your user settings can)")
    elif allow_write:
        changes["allow_write"] = _union(merged.allow_write, allow_write)
    changes["deny_write"] = _union(merged.deny_write, paths("denyWrite"))
    changes["deny_read"] = _union(merged.deny_read, paths("denyRead"))
    return replace(merged, **changes)


def _merge_network(current: NetworkSettings, raw: Any, *, source: str, trusted: bool, warnings: list[str]) -> NetworkSettings:
    if raw is None:
        return current
    if not isinstance(raw, dict):
        warnings.append(f"{source} settings: sandbox.network must be an object; ignored")
        return current
    domains = _strings(raw.get("allowedDomains"), f"{source} settings: sandbox.network.allowedDomains", warnings)
    sockets = _strings(raw.get("allowUnixSockets"), f"{source} settings: sandbox.network.allowUnixSockets", warnings)
    loosening = [key for key in ("allowLocalBinding", "allowAll", "allowAllUnixSockets") if raw.get(key) is True]
    if not trusted and (domains or sockets or loosening):
        names = ", ".join([*(["allowedDomains"] if domains else []), *(["allowUnixSockets"] if sockets else []), *loosening])
        warnings.append(f"{source} settings: sandbox.network {names} would loosen the sandbox; ignored (only your user settings can)")
        return current
    changes: dict[str, Any] = {
        "allowed_domains": tuple(dict.fromkeys((*current.allowed_domains, *domains))),
        "allow_unix_sockets": tuple(dict.fromkeys((*current.allow_unix_sockets, *(Path(os.path.expanduser(p)) for p in sockets)))),
    }
    for key, attr in (("allowLocalBinding", "allow_local_binding"), ("allowAll", "allow_all"), ("allowAllUnixSockets", "allow_all_unix_sockets")):
        value = raw.get(key)
        if isinstance(value, bool):
            changes[attr] = value
        elif value is not None:
            warnings.append(f"{source} settings: sandbox.network.{key} must be true or false; ignored")
    return replace(current, **changes)


def _strings(value: Any, label: str, warnings: list[str]) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        warnings.append(f"{label} must be a list of non-empty strings; ignored")
        return []
    return list(value)


def _union(a: tuple[Path, ...], b: tuple[Path, ...]) -> tuple[Path, ...]:
    return tuple(dict.fromkeys((*a, *b)))
