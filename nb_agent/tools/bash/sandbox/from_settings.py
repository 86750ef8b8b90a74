"""Build a session's :class:`SandboxRuntime` from the loaded settings files."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from nb_agent.permissions.rules import PermissionRule
from nb_agent.permissions.settings import Settings
from nb_agent.tools.bash.sandbox.runtime import SandboxRuntime
from nb_agent.tools.bash.sandbox.settings import merge_sandbox_settings, resolve_sandbox_path

__all__ = ["sandbox_runtime_from_settings"]

_GLOB_CHARS = set("*?[")
TRUSTED_SOURCES = frozenset({"user"})
"""Settings sources that may loosen the sandbox. Project files only tighten it, even in a
trusted folder (see :mod:`nb_agent.tools.bash.sandbox.settings`): a folder's own files must
not widen what runs unasked in it; an untrusted folder's are reduced to deny and ask rules
and this section before they get here (:func:`nb_agent.permissions.settings.load_settings`)."""


def sandbox_runtime_from_settings(settings: Settings, *, project_dir: Path, home: Path | None = None) -> SandboxRuntime:
    """The sandbox ``settings`` describe (``sandbox`` sections and file permission rules)."""
    home = home or Path.home()
    rule_paths = {
        "allow_write": _rule_paths(settings.rules, tool="Edit", behavior="allow", project_dir=project_dir, home=home, trusted_only=True),
        "deny_write": _rule_paths(settings.rules, tool="Edit", behavior="deny", project_dir=project_dir, home=home),
        "deny_read": _rule_paths(settings.rules, tool="Read", behavior="deny", project_dir=project_dir, home=home),
    }
    merged, warnings = merge_sandbox_settings(
        settings.sandbox_by_source, project_dir=project_dir, home=home, trusted_sources=TRUSTED_SOURCES, rule_paths=rule_paths
    )
    # As in Claude Code, WebFetch(domain:...) allow rules also open those domains to sandboxed commands.
    domains = [
        rule.content.removeprefix("domain:")
        for rule in settings.rules
        if rule.tool_name == "WebFetch" and rule.behavior == "allow" and rule.source in TRUSTED_SOURCES
        and rule.content and rule.content.startswith("domain:")
    ]  # fmt: skip
    if domains:
        network = replace(merged.network, allowed_domains=tuple(dict.fromkeys((*merged.network.allowed_domains, *domains))))
        merged = replace(merged, network=network)
    return SandboxRuntime(settings=merged, project_dir=project_dir, home=home, warnings=warnings)


def _rule_paths(
    rules: list[PermissionRule], *, tool: str, behavior: str, project_dir: Path, home: Path, trusted_only: bool = False
) -> tuple[Path, ...]:
    """Plain paths of ``Tool(path)`` rules (a trailing ``/**`` allowed); other globs are skipped."""
    found: list[Path] = []
    for rule in rules:
        if rule.tool_name != tool or rule.behavior != behavior or not rule.content:
            continue
        if trusted_only and rule.source not in TRUSTED_SOURCES:
            continue
        content = rule.content.removesuffix("/**").removesuffix("/*") or "/"
        if _GLOB_CHARS & set(content):
            continue
        found.append(resolve_sandbox_path(content, project_dir=rule.root or project_dir, home=home))
    return tuple(found)
