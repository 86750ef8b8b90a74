"""What a sandboxed command may not add to or change on the kernel's import path.

A command contained by the sandbox that writes ``nbformat.py`` (or ``pandas/``, a
``__pycache__``, a ``.pth``) into the kernel's working directory has its code run later by
the kernel, outside the sandbox, at the next ``import`` of that name. So in each
``sys.path`` directory that lies in a writable directory
(:func:`nb_agent.import_guard.import_directories`: the working directory and the agent's
folders are among them):

* Python's own directories (a virtual environment's site-packages and scripts inside the
  project) are read-only as a whole;
* elsewhere the entries an import would load (module files, packages, ``__pycache__``,
  ``.pth``, directories named like installed modules) are read-only, and what the command
  *creates* there is moved aside when it exits (:func:`undo_new_importables`): a mount
  cannot guard a name that does not exist yet. With bubblewrap nothing of the command
  outlives it, so the check cannot be raced.
"""

from __future__ import annotations

import functools
import os
import shutil
import sysconfig
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from nb_agent.import_guard import import_directories, importable_name, is_python_installation
from nb_agent.tools.bash.sandbox.guard import move_aside

__all__ = ["ImportDirectory", "import_read_only", "snapshot_import_directories", "undo_new_importables"]


@dataclass(frozen=True, kw_only=True)
class ImportDirectory:
    """One import directory inside a writable directory, as it was before the command."""

    path: Path
    importable: frozenset[str]
    """Entries that an import would load, by name."""
    entries: frozenset[str] = frozenset()
    """Every entry, by name (a directory that existed may become a package)."""


def _inside(path: Path, directory: Path) -> bool:
    text, base = str(path), str(directory).rstrip("/")
    return text == base or text.startswith(base + "/")


def _import_directories_in(writable: Sequence[Path]) -> list[Path]:
    found = [Path(d) for d in import_directories()]
    return [d for d in found if any(_inside(d, w) for w in writable)]


@functools.lru_cache(maxsize=1)
def _sysconfig_directories() -> tuple[Path, ...]:
    return tuple(Path(os.path.realpath(v)) for k, v in sysconfig.get_paths().items() if k in ("purelib", "platlib", "scripts", "include"))


def _python_directories_in(writable: Sequence[Path]) -> list[Path]:
    """The kernel's Python directories (site-packages, scripts: a project's ``.venv``) in a writable directory."""
    paths = list(_sysconfig_directories())
    paths += [d for d in _import_directories_in(writable) if is_python_installation(str(d))]
    return [p for p in dict.fromkeys(paths) if any(_inside(p, w) for w in writable) and p.is_dir()]


def _importable_entries(directory: Path) -> frozenset[str]:
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return frozenset()
    return frozenset(e.name for e in entries if importable_name(e.name, is_dir=e.is_dir(follow_symlinks=False), directory=str(directory)))


def _names(directory: Path) -> list[str]:
    try:
        return os.listdir(directory)
    except OSError:
        return []


def snapshot_import_directories(writable: Sequence[Path], python: Sequence[Path]) -> tuple[ImportDirectory, ...]:
    """The import directories in ``writable`` (``python``: Python's own, excepted) and what they hold now."""
    return tuple(
        ImportDirectory(path=d, importable=_importable_entries(d), entries=frozenset(_names(d)))
        for d in _import_directories_in(writable)
        if not any(_inside(d, p) for p in python)
    )


def import_read_only(writable: Sequence[Path]) -> tuple[list[Path], tuple[ImportDirectory, ...]]:
    """Paths to bind read-only (Python's directories whole, and each importable entry) and
    the snapshot :func:`undo_new_importables` compares with after the command."""
    python = _python_directories_in(writable)
    snapshot = snapshot_import_directories(writable, python)
    return python + [d.path / name for d in snapshot for name in sorted(d.importable)], snapshot


def undo_new_importables(snapshot: Sequence[ImportDirectory]) -> list[str]:
    """Move aside what the command made importable (a ``__pycache__`` is a cache: removed)."""
    notes: list[str] = []
    for directory in snapshot:
        for name in sorted(_importable_entries(directory.path) - directory.importable):
            path = directory.path / name
            if name in directory.entries and path.is_dir():  # an existing folder made a package
                path = next((p for p in path.iterdir() if p.name.startswith("__init__.")), path)
            if name == "__pycache__":
                shutil.rmtree(path, ignore_errors=True)
                notes.append(f"Sandbox: the command created {path} (compiled modules the kernel would load); it was removed.")
                continue
            why = "sandboxed commands may not add importable modules there: write it with the Write tool, which asks"
            notes.append(move_aside(path, what="which the kernel would import (it is on the kernel's import path)", why=why))
    return notes
