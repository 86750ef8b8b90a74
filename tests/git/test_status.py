"""The prompt's git status, read through libgit2: the same lines ``git status --short`` prints."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from nb_agent.git.status import read_git_snapshot, read_git_snapshot_now
from nb_agent.session_context import SessionContext

pytest.importorskip("pygit2")


def git(cwd: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@b", "GIT_COMMITTER_NAME": "a", "GIT_COMMITTER_EMAIL": "a@b"}
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True, env=env).stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    path = tmp_path / "repo"
    path.mkdir()
    git(path, "init", "-q", "-b", "trunk")
    for name in ("kept.txt", "changed.txt", "gone.txt", "staged.txt"):
        (path / name).write_text(f"{name}\n")
    git(path, "add", ".")
    git(path, "commit", "-q", "-m", "first")
    git(path, "commit", "-q", "--allow-empty", "-m", "second\n\nbody")
    return path


def test_the_lines_match_git_status_short(repo: Path) -> None:
    (repo / "changed.txt").write_text("different\n")
    (repo / "gone.txt").unlink()
    (repo / "staged.txt").write_text("staged change\n")
    (repo / "added.txt").write_text("new\n")
    git(repo, "add", "staged.txt", "added.txt")
    (repo / "untracked").mkdir()
    (repo / "untracked" / "a.txt").write_text("a")
    (repo / "loose.txt").write_text("b")
    snapshot = read_git_snapshot_now(repo)
    assert snapshot is not None
    expected = git(repo, "status", "--short", "--untracked-files=normal").splitlines()
    assert sorted(snapshot.status) == sorted(expected)
    assert snapshot.branch == "trunk" and snapshot.main_branch == "main"
    assert [line.split(" ", 1)[1] for line in snapshot.recent_commits] == ["second", "first"]


def test_detached_unborn_and_origin_head(repo: Path, tmp_path: Path) -> None:
    git(repo, "checkout", "-q", "--detach")
    assert read_git_snapshot_now(repo).branch is None
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(repo), str(clone))
    git(clone, "remote", "set-head", "origin", "trunk")
    assert read_git_snapshot_now(clone).main_branch == "trunk"
    empty = tmp_path / "empty"
    empty.mkdir()
    git(empty, "init", "-q", "-b", "start")
    snapshot = read_git_snapshot_now(empty)
    assert snapshot.branch == "start" and snapshot.recent_commits == ()


async def test_outside_a_repository_and_when_not_allowed(repo: Path, tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    assert await read_git_snapshot(plain) is None
    assert await SessionContext(cwd=repo).git_status() is None  # git_allowed defaults to False
    status = await SessionContext(cwd=repo, git_allowed=True).git_status()
    assert status is not None and "Current branch: trunk" in status and "(clean)" in status


async def test_outside_a_repository_no_child_is_started(tmp_path: Path, monkeypatch) -> None:
    from nb_agent.git import status

    def child(cwd: Path) -> None:
        raise AssertionError(f"a child was started for {cwd}")

    monkeypatch.setattr(status, "_snapshot_in_child", child)
    assert await read_git_snapshot(tmp_path) is None
    assert await SessionContext(cwd=tmp_path, git_allowed=True).git_status() is None


@pytest.mark.parametrize("planted", ["index", "include"])
def test_a_fifo_in_the_repository_gives_no_status_and_holds_nothing_up(repo: Path, planted: str, monkeypatch) -> None:
    """libgit2 blocks on a FIFO it opens; the status is given up and nothing waits for it
    (``asyncio.run`` returns: no executor thread is left to join)."""
    import asyncio

    from nb_agent.git import status

    if planted == "index":
        (repo / ".git" / "index").unlink()
        os.mkfifo(repo / ".git" / "index")
    else:
        os.mkfifo(repo.parent / "fifo")
        with (repo / ".git" / "config").open("a") as config:
            config.write(f"[include]\n\tpath = {repo.parent / 'fifo'}\n")
    monkeypatch.setattr(status, "TIMEOUT_S", 0.5)
    assert asyncio.run(read_git_snapshot(repo)) is None


def test_the_child_never_imports_from_the_repository(repo: Path, tmp_path: Path) -> None:
    marker = tmp_path / "PWNED"
    for name in ("pygit2.py", "json.py", "nb_agent.py"):
        (repo / name).write_text(f"open({str(marker)!r}, 'w').close()\n")
    import asyncio

    snapshot = asyncio.run(read_git_snapshot(repo))
    assert snapshot is not None and "?? pygit2.py" in snapshot.status
    assert not marker.exists()
