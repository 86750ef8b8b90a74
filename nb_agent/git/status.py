"""The git status shown to the model at the start of a conversation, read through libgit2.

``git status`` is not a read: it runs what the repository's configuration names
(``core.fsmonitor``, the ``clean`` command of a ``filter`` driver a ``.gitattributes``
line selects, ``log.showSignature``'s ``gpg.program``, …), and those files come with the
folder. libgit2 (``pygit2``) implements none of these: it reads the index, the objects
and the working tree and never starts a process. Without pygit2 there is no git status
(never a fallback to the git program).
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nb_agent.git.discovery import discover_repository

__all__ = ["GitSnapshot", "read_git_snapshot", "short_status_lines"]

log = logging.getLogger(__name__)

RECENT_COMMITS = 5
TIMEOUT_S = 5.0


@dataclass(frozen=True, kw_only=True)
class GitSnapshot:
    """What the prompt says about the repository."""

    branch: str | None
    """``None`` when HEAD is detached."""
    main_branch: str
    status: tuple[str, ...]
    """``git status --short`` lines (``XY path``), sorted by path."""
    recent_commits: tuple[str, ...]
    """``git log --oneline`` lines, newest first."""


def _index_code(flags: int, s: Any) -> str:
    for flag, code in ((s.INDEX_NEW, "A"), (s.INDEX_MODIFIED, "M"), (s.INDEX_DELETED, "D"),
                       (s.INDEX_RENAMED, "R"), (s.INDEX_TYPECHANGE, "T")):  # fmt: skip
        if flags & flag:
            return code
    return " "


def _worktree_code(flags: int, s: Any) -> str:
    for flag, code in ((s.WT_MODIFIED, "M"), (s.WT_DELETED, "D"), (s.WT_RENAMED, "R"), (s.WT_TYPECHANGE, "T")):
        if flags & flag:
            return code
    return " "


def short_status_lines(status: dict[str, int]) -> tuple[str, ...]:
    """``XY path`` lines as ``git status --short`` prints them (untracked ``??``, conflicts ``UU``)."""
    from pygit2.enums import FileStatus as s

    lines = []
    for path, flags in sorted(status.items()):
        if flags & s.CONFLICTED:
            code = "UU"
        elif flags & s.WT_NEW and not flags & (s.INDEX_NEW | s.INDEX_MODIFIED):
            code = "??"
        else:
            code = _index_code(flags, s) + _worktree_code(flags, s)
        if code.strip():
            lines.append(f"{code} {path}")
    return tuple(lines)


def _snapshot(cwd: Path) -> GitSnapshot | None:
    import pygit2

    found = pygit2.discover_repository(str(cwd))
    if found is None:
        return None
    repo = pygit2.Repository(found)
    if repo.is_bare:
        return None
    head = repo.lookup_reference("HEAD").target  # a branch name, or an id when detached
    branch = head.removeprefix("refs/heads/") if isinstance(head, str) else None
    commits: list[str] = []
    if not repo.head_is_unborn:
        for commit in repo.walk(repo.head.target, pygit2.enums.SortMode.TIME):
            commits.append(f"{commit.short_id} {commit.message.splitlines()[0] if commit.message else ''}".rstrip())
            if len(commits) == RECENT_COMMITS:
                break
    origin_head = repo.references.get("refs/remotes/origin/HEAD")
    target = origin_head.target if origin_head is not None else None
    main = target.removeprefix("refs/remotes/origin/") if isinstance(target, str) else "main"
    status = short_status_lines(repo.status(untracked_files="normal"))
    return GitSnapshot(branch=branch, main_branch=main or "main", status=status, recent_commits=tuple(commits))


def read_git_snapshot_now(cwd: Path) -> GitSnapshot | None:
    """The snapshot, or ``None`` outside a work tree, without pygit2, or on any libgit2 error."""
    try:
        return _snapshot(cwd)
    except ImportError:
        log.debug("pygit2 is not installed: no git status in the prompt")
    except Exception:  # a repository libgit2 cannot read: no status, never a crash
        log.debug("reading the git status of %s failed", cwd, exc_info=True)
    return None


async def read_git_snapshot(cwd: Path) -> GitSnapshot | None:
    """:func:`read_git_snapshot_now` in a child process, given up (killed) after
    :data:`TIMEOUT_S`: a huge working tree must not hold up the first request, and libgit2
    blocks for good on a repository file that is a FIFO or a pipe (the index, an
    ``include.path`` of ``/proc/self/fd/0``); in the kernel's process that froze the kernel
    (a thread cannot be stopped), a child is killed. No child where git would find no
    repository (:func:`~nb_agent.git.discovery.discover_repository`: a first run outside a
    repository waited 0.2 s for a Python process to say so)."""
    import asyncio  # here: the child imports this module, and asyncio is a quarter of its start-up

    if discover_repository(cwd) is None:
        return None
    return await asyncio.to_thread(_snapshot_in_child, cwd)


def _snapshot_in_child(cwd: Path) -> GitSnapshot | None:
    # Started from the interpreter's own folder with stdin closed, never from the repository:
    # ``python -c`` puts its working directory first on sys.path (a planted pygit2.py).
    code = "import sys; from nb_agent.git.status import _child_main; _child_main(sys.argv[1])"
    try:
        done = subprocess.run(
            [sys.executable, "-c", code, os.fspath(cwd)], cwd=os.path.dirname(sys.executable),
            stdin=subprocess.DEVNULL, capture_output=True, timeout=TIMEOUT_S, check=False,
        )  # fmt: skip
        data = json.loads(done.stdout) if done.returncode == 0 else None
    except (OSError, subprocess.SubprocessError, ValueError):
        log.debug("the git status of %s was not read in time", cwd, exc_info=True)
        return None
    if not isinstance(data, dict):
        return None
    return GitSnapshot(
        branch=data["branch"], main_branch=data["main_branch"],
        status=tuple(data["status"]), recent_commits=tuple(data["recent_commits"]),
    )  # fmt: skip


def _child_main(cwd: str) -> None:
    snapshot = read_git_snapshot_now(Path(cwd))
    print(json.dumps(None if snapshot is None else dataclasses.asdict(snapshot)))
