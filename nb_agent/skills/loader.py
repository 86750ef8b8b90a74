"""Finding skills and custom commands: ``~/.claude`` and, in a trusted folder, the project's.

- skills: ``~/.claude/skills/<name>/SKILL.md`` and ``<project>/.claude/skills/<name>/SKILL.md``;
- commands: ``~/.claude/commands/**/*.md`` and ``<project>/.claude/commands/**/*.md`` (a
  command in a subfolder ``frontend/`` is ``/frontend:name``).

A project's skills and commands are prompts and tool lists the folder brings, so they are
read only once the user trusts the folder (:mod:`nb_agent.folder_trust`), as its agents
are; a file that is a link out of the folder is never read. Where two share a name, the
user's own wins over the project's (Claude Code's precedence) and a skill over a command.
A file that cannot be used is skipped and named in ``issues``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from nb_agent.config_text import read_config_text
from nb_agent.errors import ConfigurationError
from nb_agent.skills.definition import SkillDefinition, SkillKind, SkillSource, parse_skill_text

__all__ = ["COMMANDS_DIR", "SKILLS_DIR", "SkillCatalog", "load_skill_catalog"]

SKILLS_DIR = Path(".claude") / "skills"
COMMANDS_DIR = Path(".claude") / "commands"
SKILL_FILE = "SKILL.md"
MAX_SKILL_FILE_BYTES = 256_000
MAX_ENTRIES = 500
"""Per folder: a folder planting thousands of files does not slow every session."""


@dataclass(kw_only=True)
class SkillCatalog:
    """The skills and commands of a session, and what could not be used."""

    definitions: list[SkillDefinition] = field(default_factory=list)
    issues: list[str] = field(default_factory=list)
    """One line per skipped file or folder: its path and what is wrong."""

    def find(self, name: str) -> SkillDefinition | None:
        """By name (a leading ``/`` ignored), exact first, then case-insensitive."""
        name = name.removeprefix("/")
        exact = next((d for d in self.definitions if d.name == name), None)
        return exact or next((d for d in self.definitions if d.name.lower() == name.lower()), None)

    @property
    def model_invocable(self) -> list[SkillDefinition]:
        return [d for d in self.definitions if d.model_invocable]

    @property
    def user_invocable(self) -> list[SkillDefinition]:
        return [d for d in self.definitions if d.user_invocable]

    def of_kind(self, kind: SkillKind) -> list[SkillDefinition]:
        return [d for d in self.definitions if d.kind == kind]


def load_skill_catalog(*, cwd: Path, home: Path, include_project: bool) -> SkillCatalog:
    """The user's skills and commands, then (with ``include_project``: the folder is
    trusted) the project's. Project entries never replace the user's own."""
    catalog = SkillCatalog()
    by_name: dict[str, SkillDefinition] = {}
    sources: list[tuple[SkillSource, Path]] = [("user", home)]
    project = Path(os.path.abspath(cwd))
    if include_project and project != Path(os.path.abspath(home)):
        sources.append(("project", project))
    elif not include_project:
        for relative in (SKILLS_DIR, COMMANDS_DIR):
            if has_entries(project / relative):
                catalog.issues.append(f"{project / relative}: not loaded (the folder is not trusted)")
    for source, root in sources:
        found = [*_skills(root, source, catalog), *_commands(root, source, catalog)]
        for definition in found:
            kept = by_name.get(definition.name)
            if kept is None or _wins(definition, kept):
                by_name[definition.name] = definition
            else:
                catalog.issues.append(f"{definition.path}: /{definition.name} is also {kept.path}; that one is used")
    catalog.definitions = sorted(by_name.values(), key=lambda d: d.name)
    return catalog


def _wins(new: SkillDefinition, old: SkillDefinition) -> bool:
    if new.source != old.source:
        return new.source == "user"
    return new.kind == "skill" and old.kind == "command"


def has_entries(directory: Path) -> bool:
    """Does ``directory`` exist and hold anything?"""
    try:
        return any(True for _ in os.scandir(directory))
    except OSError:
        return False


def _skills(root: Path, source: SkillSource, catalog: SkillCatalog) -> list[SkillDefinition]:
    directory = root / SKILLS_DIR
    try:
        entries = sorted(os.scandir(directory), key=lambda e: e.name)[:MAX_ENTRIES]
    except OSError:
        return []
    found = []
    for entry in entries:
        path = Path(entry.path) / SKILL_FILE
        if entry.is_dir() and (path.exists() or path.is_symlink()):
            if definition := _load(path, root, source, "skill", entry.name, catalog):
                found.append(definition)
    return found


def _commands(root: Path, source: SkillSource, catalog: SkillCatalog) -> list[SkillDefinition]:
    directory = root / COMMANDS_DIR
    files: list[Path] = []
    for folder, _dirs, names in os.walk(directory):  # directory links are not followed
        files += [Path(folder) / n for n in names if n.endswith(".md")]
        if len(files) >= MAX_ENTRIES:
            break
    found = []
    for path in sorted(files)[:MAX_ENTRIES]:
        name = ":".join(path.relative_to(directory).with_suffix("").parts)
        if definition := _load(path, root, source, "command", name, catalog):
            found.append(definition)
    return found


def _load(path: Path, root: Path, source: SkillSource, kind: SkillKind, name: str, catalog: SkillCatalog) -> SkillDefinition | None:
    real_root = os.path.realpath(root).rstrip(os.sep) + os.sep
    if source == "project" and not os.path.realpath(path).startswith(real_root):
        catalog.issues.append(f"{path}: a link to a file outside {root}; not read")
        return None
    try:
        text = read_config_text(path, limit=MAX_SKILL_FILE_BYTES)
        return parse_skill_text(text, name=name, kind=kind, source=source, path=path)
    except FileNotFoundError:
        catalog.issues.append(f"{path}: not found")
    except (OSError, UnicodeDecodeError) as exc:
        catalog.issues.append(f"{path}: cannot be read ({exc})")
    except ConfigurationError as exc:
        catalog.issues.append(f"{path}: {exc}")
    return None
