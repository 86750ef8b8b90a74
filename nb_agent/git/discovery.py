"""Which repository git would use from a directory, found without running git."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

__all__ = ["GitRepository", "discover_repository"]


@dataclass(frozen=True, kw_only=True)
class GitRepository:
    """A repository as git's discovery would find it."""

    git_dir: Path
    work_tree: Path | None
    """``None`` for a bare repository (the directory itself is the git dir)."""


def _is_git_dir(path: Path) -> bool:
    return (path / "HEAD").is_file() and (path / "objects").is_dir() and (path / "refs").is_dir()


def discover_repository(start: Path) -> GitRepository | None:
    """The repository git would use from ``start``: at each level ``.git`` (directory or
    ``gitdir:`` file), then the directory itself as a bare repository, then the parent."""
    for directory in (start, *start.parents):
        dot_git = directory / ".git"
        if dot_git.is_dir():
            return GitRepository(git_dir=dot_git, work_tree=directory)
        if dot_git.is_file():
            target = _gitdir_file(dot_git)
            return GitRepository(git_dir=target if target else dot_git, work_tree=directory)
        if _is_git_dir(directory):
            return GitRepository(git_dir=directory, work_tree=None)
    return None


def _gitdir_file(path: Path) -> Path | None:
    try:
        text = path.read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return None
    if not text.startswith("gitdir:"):
        return None
    target = Path(text[len("gitdir:") :].strip())
    return target if target.is_absolute() else (path.parent / target)
