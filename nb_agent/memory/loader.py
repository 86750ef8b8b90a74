"""Which memory files a session reads, in Claude Code's order, and their ``@path`` imports.

1. the managed file (``/etc/claude-code/CLAUDE.md``), then the user's own
   ``~/.claude/CLAUDE.md`` and ``~/.claude/rules/**/*.md``;
2. from the filesystem root down to the working directory, in each folder:
   ``CLAUDE.md``, ``AGENTS.md``, ``.claude/CLAUDE.md``, ``.claude/rules/**/*.md`` (those
   without ``paths``) and ``CLAUDE.local.md``;
3. after each file, the files it imports (depth-first, at most five hops, each file once).

The nearest file comes last, so it wins where instructions conflict. A project's files
(everything not the user's own or the administrator's) are read in every folder, trusted
or not: they are text the model reads, like any file of the folder. So they are held to
the folder's rules: a file (or an import) that is a link to a file outside its folder is
never read; an import that names a file outside the folder (``@../x``, ``@~/x``,
``@/etc/x``) is read only once the user trusts the folder (Claude Code asks before it
follows such an import); and a ``Read`` deny or ask rule covers imports as it covers Read.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from nb_agent.errors import ConfigurationError
from nb_agent.memory.files import (
    MemoryFile,
    MemoryOwner,
    MemoryReadError,
    SkippedMemory,
    links_outside,
    read_memory_text,
)
from nb_agent.memory.imports import MAX_IMPORT_DEPTH, import_paths, resolve_import
from nb_agent.memory.rules import RULES_DIR, rule_files, rule_text
from nb_agent.permissions.settings import is_users_own

__all__ = [
    "MANAGED_MEMORY_FILE",
    "MemoryLoad",
    "MemoryScope",
    "folder_memory_names",
    "load_memory",
    "load_folder_memory",
    "outside_imports",
]

MANAGED_MEMORY_FILE = (
    Path("/Library/Application Support/ClaudeCode/CLAUDE.md") if sys.platform == "darwin" else Path("/etc/claude-code/CLAUDE.md")
)
PROJECT_FILE_NAMES = ("CLAUDE.md", "AGENTS.md", str(Path(".claude") / "CLAUDE.md"))
LOCAL_FILE_NAME = "CLAUDE.local.md"

ReadDenied = Callable[[Path], "str | None"]


def _nothing_denied(path: Path) -> str | None:
    return None


@dataclass(frozen=True, kw_only=True)
class MemoryScope:
    """Where a session looks for memory and what it may follow."""

    cwd: Path
    home: Path
    trusted: bool = False
    """Whether the folder's files may take effect (:class:`~nb_agent.folder_trust.FolderTrust`):
    only then does a project file's import of a file outside its folder get read."""
    managed_file: Path | None = MANAGED_MEMORY_FILE
    read_denied: ReadDenied = _nothing_denied
    """The ``Read`` deny or ask rule that covers a path (its text), or None."""


@dataclass(kw_only=True)
class MemoryLoad:
    """What was read, what was not (with why), and the path-specific rules held back."""

    files: list[MemoryFile] = field(default_factory=list)
    skipped: list[SkippedMemory] = field(default_factory=list)
    conditional: list[MemoryFile] = field(default_factory=list)
    """Rules with ``paths``: read when the agent first reads a file they match."""
    seen: set[str] = field(default_factory=set)
    """Real paths already read (a file is included once, however often it is imported)."""

    def skip(self, path: Path, reason: str, imported_by: Path | None = None) -> None:
        self.skipped.append(SkippedMemory(path=path, reason=reason, imported_by=imported_by))


def folder_memory_names(directory: Path) -> list[tuple[Path, MemoryOwner]]:
    """The memory files one folder may hold, in reading order (rules excluded)."""
    return [*((directory / name, "project") for name in PROJECT_FILE_NAMES), (directory / LOCAL_FILE_NAME, "local")]


OUTSIDE_REASON = "a project file's imports from outside its folder are read once you trust the folder"


def outside_imports(load: MemoryLoad) -> list[SkippedMemory]:
    """The imports of project files that are waiting for the folder to be trusted."""
    return [s for s in load.skipped if OUTSIDE_REASON in s.reason]


def load_memory(scope: MemoryScope) -> MemoryLoad:
    """Every memory file a session started in ``scope.cwd`` reads at its start."""
    load = MemoryLoad()
    if scope.managed_file is not None and scope.managed_file.exists():
        _add_top(load, scope, scope.managed_file, "managed", scope.managed_file.parent)
    user_dir = scope.home / ".claude"
    if (user_dir / "CLAUDE.md").exists() or (user_dir / "CLAUDE.md").is_symlink():
        _add_top(load, scope, user_dir / "CLAUDE.md", "user", user_dir)
    _add_rules(load, scope, user_dir / "rules", "user", user_dir)
    cwd = Path(os.path.abspath(scope.cwd))
    for directory in reversed([cwd, *cwd.parents]):
        load_folder_memory(load, scope, directory)
    return load


def load_folder_memory(load: MemoryLoad, scope: MemoryScope, directory: Path) -> None:
    """One folder's memory files (and rules) into ``load``, skipping those already read.

    Their imports must stay in the project's folder (the working directory) when the
    folder is in it, else in the folder itself (a parent of the working directory)."""
    cwd = Path(os.path.abspath(scope.cwd))
    folder = cwd if directory == cwd or cwd in directory.parents else directory
    names = folder_memory_names(directory)
    for path, owner in names[:-1]:
        if path.exists() or path.is_symlink():
            _add_top(load, scope, path, _owner(path, owner, scope), folder)
    rules = directory / RULES_DIR
    _add_rules(load, scope, rules, _owner(rules, "project", scope), folder)
    local, owner = names[-1]
    if local.exists() or local.is_symlink():
        _add_top(load, scope, local, owner, folder)


def _owner(path: Path, owner: MemoryOwner, scope: MemoryScope) -> MemoryOwner:
    # A session started in the home folder reads ~/.claude as a project folder: still the user's.
    return "user" if is_users_own(path, home=scope.home) else owner


def _add_rules(load: MemoryLoad, scope: MemoryScope, rules_dir: Path, owner: MemoryOwner, folder: Path) -> None:
    if not rules_dir.is_dir():
        return
    if owner not in ("managed", "user") and links_outside(rules_dir, folder):
        load.skip(rules_dir, f"a link to a folder outside {folder}")
        return
    files, more = rule_files(rules_dir)
    if more:
        load.skip(rules_dir, f"more than {len(files)} rule files; the rest were not read")
    for path in files:
        _add_top(load, scope, path, owner, folder, is_rule=True)


def _add_top(load: MemoryLoad, scope: MemoryScope, path: Path, owner: MemoryOwner, folder: Path, *, is_rule: bool = False) -> None:
    if owner not in ("managed", "user") and links_outside(path, folder):
        load.skip(path, f"a link to a file outside {folder}")
        return
    _read(load, scope, path, owner=owner, folder=folder, imported_by=None, chain=(), is_rule=is_rule)


def _read(
    load: MemoryLoad,
    scope: MemoryScope,
    path: Path,
    *,
    owner: MemoryOwner,
    folder: Path,
    imported_by: Path | None,
    chain: tuple[str, ...],
    is_rule: bool = False,
) -> None:
    real = os.path.realpath(path)
    if real in chain:
        load.skip(path, "an import cycle: " + " → ".join([*(Path(c).name for c in chain), path.name]), imported_by)
        return
    if real in load.seen:
        if imported_by is not None:
            load.skip(path, "already included above", imported_by)
        return
    if (rule := scope.read_denied(path)) is not None:
        load.skip(path, f"the rule {rule} covers it", imported_by)
        return
    try:
        text, truncated = read_memory_text(path)
    except MemoryReadError as exc:
        load.skip(path, str(exc), imported_by)
        return
    rule_paths: tuple[str, ...] = ()
    if is_rule:
        try:
            parsed = rule_text(text)
        except ConfigurationError as exc:
            load.skip(path, str(exc), imported_by)
            return
        text, rule_paths = parsed.body, parsed.paths
    load.seen.add(real)
    memory = MemoryFile(
        path=path,
        owner=owner,
        text=text,
        folder=folder,
        imported_by=imported_by,
        truncated=truncated,
        rule_paths=rule_paths,
        rule_base=_rule_base(path, owner, scope) if rule_paths else None,
    )
    if rule_paths:
        load.conditional.append(memory)
        return  # its imports are read with it, when a file it is about is read
    load.files.append(memory)
    follow_imports(load, scope, memory, chain=(*chain, real))


def _rule_base(path: Path, owner: MemoryOwner, scope: MemoryScope) -> Path:
    if owner in ("managed", "user"):
        return Path(os.path.abspath(scope.cwd))
    for parent in path.parents:
        if parent.name == "rules" and parent.parent.name == ".claude":
            return parent.parent.parent
    return path.parent


def follow_imports(load: MemoryLoad, scope: MemoryScope, memory: MemoryFile, *, chain: tuple[str, ...]) -> None:
    """Read the files ``memory`` imports (and theirs), appending them after it."""
    for raw in import_paths(memory.text):
        target = resolve_import(raw, importer=memory.path, home=scope.home)
        if len(chain) > MAX_IMPORT_DEPTH:
            load.skip(target, f"more than {MAX_IMPORT_DEPTH} imports deep", memory.path)
            continue
        if reason := _import_refused(target, memory, scope):
            load.skip(target, reason, memory.path)
            continue
        _read(load, scope, target, owner=memory.owner, folder=memory.folder, imported_by=memory.path, chain=chain)


def _import_refused(target: Path, memory: MemoryFile, scope: MemoryScope) -> str | None:
    if memory.users_own:
        return None  # the user's own files import what they like
    folder = os.path.normpath(memory.folder).rstrip(os.sep) + os.sep
    if os.path.normpath(target).startswith(folder):  # named inside the folder: it must be there
        return f"a link to a file outside {memory.folder}" if links_outside(target, memory.folder) else None
    if not scope.trusted:
        return f"outside {memory.folder}: {OUTSIDE_REASON} (%agent trust)"
    return None
