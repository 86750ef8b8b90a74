"""Claude Code settings files: ``~/.claude/settings.json``, ``.claude/settings.json``,
``.claude/settings.local.json``.

Precedence is local > project > user for single values (``defaultMode``); permission
rules and ``additionalDirectories`` are unioned, each rule keeping its source. A file
that cannot be read or parsed is skipped with a warning in :attr:`Settings.warnings`:
never a crash, never silence.

A folder the user has not trusted (``project_trusted=False``, see
:mod:`nb_agent.folder_trust`) contributes only its deny and ask rules (they only tighten)
and its ``sandbox`` section (which a project file can only tighten anyway); everything
else in its files is left out and listed in :attr:`Settings.untrusted_skipped`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, cast, get_args

from nb_agent.config_text import read_config_text
from nb_agent.errors import ConfigurationError
from nb_agent.permissions.paths import home_directory
from nb_agent.permissions.rules import PermissionRule, RuleBehavior, parse_rule
from nb_agent.permissions.types import PERMISSION_MODES, PermissionMode

__all__ = ["Settings", "SettingsSource", "is_users_own", "load_settings", "settings_file_paths", "untrusted_settings_keys"]

SettingsSource = Literal["user", "project", "local"]
"""Settings layers, lowest precedence first."""

_BEHAVIORS: tuple[RuleBehavior, ...] = get_args(RuleBehavior)


_TIGHTENING_PERMISSION_KEYS = frozenset({"deny", "ask"})
_HARMLESS_TOP_KEYS = frozenset({"$schema", "sandbox"})
"""``sandbox`` from a project file can only tighten, trusted or not
(:mod:`nb_agent.tools.bash.sandbox.settings`)."""


@dataclass(kw_only=True)
class Settings:
    """The merged view of every settings file that applies to one project."""

    rules: list[PermissionRule] = field(default_factory=list)
    """Rules of every file (user, then project, then local), each with its source."""
    default_mode: PermissionMode | None = None
    additional_directories: list[Path] = field(default_factory=list)
    hooks_by_source: dict[SettingsSource, dict[str, Any]] = field(default_factory=dict)
    """Each file's raw ``hooks`` object, for the hooks module to interpret."""
    sandbox_by_source: dict[SettingsSource, Any] = field(default_factory=dict)
    """Each file's raw ``sandbox`` object, for :mod:`nb_agent.tools.bash.sandbox` to interpret."""
    warnings: list[str] = field(default_factory=list)
    loaded_files: list[Path] = field(default_factory=list)
    source_paths: dict[SettingsSource, Path] = field(default_factory=dict)
    """The file each loaded layer came from (``%agent hooks`` names it)."""
    project_dir: Path | None = None
    project_trusted: bool = True
    """False: the project's files were read as an untrusted folder's (deny and ask rules only)."""
    untrusted_skipped: list[str] = field(default_factory=list)
    """What the untrusted folder's files asked for and did not get, per file."""

    def rules_with(self, behavior: RuleBehavior) -> list[PermissionRule]:
        return [r for r in self.rules if r.behavior == behavior]

    @property
    def hooks(self) -> dict[str, list[Any]]:
        """``hooks`` of every file merged per event: user matchers first, local last."""
        merged: dict[str, list[Any]] = {}
        for source in get_args(SettingsSource):
            for event, matchers in self.hooks_by_source.get(source, {}).items():
                entries = matchers if isinstance(matchers, list) else [matchers]
                merged.setdefault(event, []).extend(entries)
        return merged


def settings_file_paths(project_dir: Path, *, home: Path | None = None) -> list[tuple[SettingsSource, Path]]:
    """The files consulted, lowest precedence first."""
    home = home or home_directory()
    paths: list[tuple[SettingsSource, Path]] = [
        ("user", home / ".claude" / "settings.json"),
        ("project", project_dir / ".claude" / "settings.json"),
        ("local", project_dir / ".claude" / "settings.local.json"),
    ]
    # Started from the home directory, the user file *is* the project file: read it once.
    if _same_file(paths[0][1], paths[1][1]):
        paths.pop(0)
    return paths


def load_settings(project_dir: Path, *, home: Path | None = None, project_trusted: bool = True) -> Settings:
    """Read and merge the settings files for ``project_dir`` (missing files are fine).

    ``project_trusted=False``: the project and local files give only their deny and ask
    rules and ``sandbox`` section (files under ``~/.claude`` are the user's own and count in full).
    """
    project_dir = Path(os.path.abspath(project_dir))
    home = home or home_directory()
    settings = Settings(project_dir=project_dir, project_trusted=project_trusted)
    for source, path in settings_file_paths(project_dir, home=home):
        data = _read_json_object(path, settings.warnings)
        if data is None:
            continue
        if source != "user" and not project_trusted and not is_users_own(path, home=home):
            data = _untrusted_part(data, path=path, skipped=settings.untrusted_skipped)
        settings.loaded_files.append(path)
        settings.source_paths[source] = path
        _merge_file(settings, source=source, path=path, data=data, home=home)
    return settings


def is_users_own(path: Path, *, home: Path | None = None) -> bool:
    """Is ``path`` in the user's own ``~/.claude`` (compared as spelled: a symlink from a
    project into it still counts as the project's)?"""
    own = os.path.normpath(os.path.abspath(home or home_directory())) + os.sep + ".claude" + os.sep
    return os.path.normpath(os.path.abspath(path)).startswith(own)


def untrusted_settings_keys(data: dict[str, Any]) -> list[str]:
    """The keys of a settings object an untrusted folder may not use: everything but
    ``permissions.deny`` / ``.ask`` and the (tighten-only) ``sandbox``; unknown keys
    included (fail closed: a key nb_agent does not read today may run something later)."""
    keys: list[str] = []
    for key, value in data.items():
        if key in _HARMLESS_TOP_KEYS or _empty(value):
            continue
        if key == "permissions" and isinstance(value, dict):
            keys += [f"permissions.{k}" for k, v in value.items() if k not in _TIGHTENING_PERMISSION_KEYS and not _empty(v)]
        else:
            keys.append(key)
    return keys


def _empty(value: Any) -> bool:
    return value is None or (isinstance(value, (list, dict, str)) and not value)


def _untrusted_part(data: dict[str, Any], *, path: Path, skipped: list[str]) -> dict[str, Any]:
    """What an untrusted folder's settings file may still do: deny and ask rules, the sandbox."""
    if left_out := untrusted_settings_keys(data):
        skipped.append(f"{path}: {', '.join(left_out)}")
    permissions = data.get("permissions")
    kept: dict[str, Any] = {"permissions": {}}
    if isinstance(permissions, dict):
        kept["permissions"] = {k: v for k, v in permissions.items() if k in _TIGHTENING_PERMISSION_KEYS}
    if "sandbox" in data:
        kept["sandbox"] = data["sandbox"]
    return kept


def _read_json_object(path: Path, warnings: list[str]) -> dict[str, Any] | None:
    try:
        text = read_config_text(path)
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        warnings.append(f"{path}: cannot be read ({exc}); file skipped")
        return None
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        warnings.append(f"{path}: invalid JSON at line {exc.lineno} column {exc.colno} ({exc.msg}); file skipped")
        return None
    if not isinstance(data, dict):
        warnings.append(f"{path}: expected a JSON object at the top level, got {type(data).__name__}; file skipped")
        return None
    return data


def _merge_file(settings: Settings, *, source: SettingsSource, path: Path, data: dict[str, Any], home: Path) -> None:
    permissions = data.get("permissions", {})
    if not isinstance(permissions, dict):
        settings.warnings.append(f"{path}: 'permissions' must be an object; ignored")
        permissions = {}
    # ``/path`` rules are relative to the project root for project files (the settings
    # file's project); user rules float with the session's working directory.
    root = settings.project_dir if source != "user" else None
    for behavior in _BEHAVIORS:
        for text in _string_list(permissions.get(behavior, []), f"{path}: permissions.{behavior}", settings.warnings):
            try:
                settings.rules.append(parse_rule(text, behavior=behavior, source=source, root=root))
            except ConfigurationError as exc:
                settings.warnings.append(f"{path}: permissions.{behavior}: {exc}; rule skipped")
    mode = permissions.get("defaultMode")
    if mode is not None:
        if mode in PERMISSION_MODES:
            settings.default_mode = cast(PermissionMode, mode)
        else:
            settings.warnings.append(
                f"{path}: permissions.defaultMode {mode!r} is not one of {', '.join(PERMISSION_MODES)}; ignored"
            )
    label = f"{path}: permissions.additionalDirectories"
    for text in _string_list(permissions.get("additionalDirectories", []), label, settings.warnings):
        directory = _expand_directory(text, base=settings.project_dir or Path.cwd(), home=home)
        if directory not in settings.additional_directories:
            settings.additional_directories.append(directory)
    if "sandbox" in data:
        settings.sandbox_by_source[source] = data["sandbox"]
    hooks = data.get("hooks")
    if hooks is not None:
        if isinstance(hooks, dict):
            settings.hooks_by_source[source] = hooks
        else:
            settings.warnings.append(f"{path}: 'hooks' must be an object; ignored")


def _string_list(value: Any, label: str, warnings: list[str]) -> Iterable[str]:
    if not isinstance(value, list):
        warnings.append(f"{label} must be a list of strings; ignored")
        return []
    good = [v for v in value if isinstance(v, str)]
    if len(good) != len(value):
        warnings.append(f"{label}: non-string entries ignored")
    return good


def _expand_directory(text: str, *, base: Path, home: Path) -> Path:
    if text == "~" or text.startswith("~/"):
        path = home / text[2:]
    else:
        path = Path(text)
        if not path.is_absolute():
            path = base / path
    return Path(os.path.normpath(path))


def _same_file(a: Path, b: Path) -> bool:
    return os.path.normpath(os.path.abspath(a)) == os.path.normpath(os.path.abspath(b))
