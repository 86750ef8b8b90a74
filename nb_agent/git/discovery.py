"""Which repository git would use from a directory, found without running git."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

__all__ = ["GitRepository", "discover_repository"]


@dataclass(frozen=True, kw_only=True)
class GitRepository:
    """A repository as git's discovery would find it."""

    git_dir: Path
    work_tree: Path | None
    """``None`` for a bare repository (the directory itself is the git dir)."""


_GITDIR_FILE_LIMIT = 64 * 1024
"""A ``.git`` file is one line; a bigger one is not read whole (it still counts as a repository)."""


def _is_git_dir(path: Path) -> bool:
    """Might git take ``path`` for a repository? A superset of git's own test
    (``is_git_directory`` in setup.c): ``HEAD`` may be a symlink into ``refs/`` that does
    not resolve, ``objects`` and ``refs`` need only be accessible (an executable *file*
    passes), and with a ``commondir`` file they are looked for in the directory it names."""
    if not os.path.lexists(path / "HEAD"):
        return False
    if os.path.lexists(path / "commondir"):
        return True
    return os.path.lexists(path / "objects") and os.path.lexists(path / "refs")


def discover_repository(start: Path) -> GitRepository | None:
    """The repository git would use from ``start``: at each level ``.git`` (a ``gitdir:``
    file, or a directory that is a repository), then the directory itself as a bare
    repository, then the parent. Where git would go on past a ``.git`` directory that is
    not a repository, so does this (the directory itself may be the repository git uses)."""
    for directory in (start, *start.parents):
        dot_git = directory / ".git"
        if dot_git.is_file():  # git reads it, or stops with an error
            target = _gitdir_file(dot_git)
            return GitRepository(git_dir=target if target else dot_git, work_tree=directory)
        if dot_git.is_dir() and _is_git_dir(dot_git):
            return GitRepository(git_dir=dot_git, work_tree=directory)
        if _is_git_dir(directory):
            return GitRepository(git_dir=directory, work_tree=None)
    return None


def _gitdir_file(path: Path) -> Path | None:
    try:
        with path.open("rb") as file:
            text = file.read(_GITDIR_FILE_LIMIT).decode("utf-8", errors="replace").strip()
    except OSError:
        return None
    if not text.startswith("gitdir:"):
        return None
    target = Path(text[len("gitdir:") :].strip())
    return target if target.is_absolute() else (path.parent / target)
