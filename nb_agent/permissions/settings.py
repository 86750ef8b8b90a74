"""Claude Code settings files: ``~/.claude/settings.json``, ``.claude/settings.json``,
``.claude/settings.local.json``.

Precedence is local > project > user for single values (``defaultMode``); permission
rules and ``additionalDirectories`` are unioned, each rule keeping its source. A file
that cannot be read or parsed is skipped with a warning in :attr:`Settings.warnings`:
never a crash, never silence.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, cast, get_args

from nb_agent.errors import ConfigurationError
from nb_agent.permissions.paths import home_directory
from nb_agent.permissions.rules import PermissionRule, RuleBehavior, parse_rule
from nb_agent.permissions.types import PERMISSION_MODES, PermissionMode

__all__ = ["Settings", "SettingsSource", "load_settings", "settings_file_paths"]

SettingsSource = Literal["user", "project", "local"]
"""Settings layers, lowest precedence first."""

_BEHAVIORS: tuple[RuleBehavior, ...] = get_args(RuleBehavior)


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


def load_settings(project_dir: Path, *, home: Path | None = None) -> Settings:
    """Read and merge the settings files for ``project_dir`` (missing files are fine)."""
    project_dir = Path(os.path.abspath(project_dir))
    home = home or home_directory()
    settings = Settings(project_dir=project_dir)
    for source, path in settings_file_paths(project_dir, home=home):
        data = _read_json_object(path, settings.warnings)
        if data is None:
            continue
        settings.loaded_files.append(path)
        settings.source_paths[source] = path
        _merge_file(settings, source=source, path=path, data=data, home=home)
    return settings


def _read_json_object(path: Path, warnings: list[str]) -> dict[str, Any] | None:
    try:
        text = path.read_text(encoding="utf-8")
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
