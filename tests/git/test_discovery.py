"""Repository discovery without running git, checked against git itself: every layout git
takes for a repository is found (a folder git reads configuration from needs trust, and
git there is not read-only)."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from nb_agent.git.discovery import discover_repository


def git(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "GIT_CEILING_DIRECTORIES": str(cwd.parent), "GIT_AUTHOR_NAME": "a",
           "GIT_AUTHOR_EMAIL": "a@b", "GIT_COMMITTER_NAME": "a", "GIT_COMMITTER_EMAIL": "a@b"}  # fmt: skip
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, env=env)


def bare_parts(folder: Path, *, head: str = "file", refs: str = "dir") -> None:
    """A bare repository's signature, spelled as loosely as git accepts it."""
    (folder / "objects").mkdir()
    if refs == "dir":
        (folder / "refs").mkdir()
    else:  # git only checks that refs is accessible
        (folder / "refs").write_text("")
        (folder / "refs").chmod(0o755)
    if head == "file":
        (folder / "HEAD").write_text("ref: refs/heads/main\n")
    else:  # a symlink into refs/ is a valid HEAD to git even when it does not resolve
        (folder / "HEAD").symlink_to("refs/heads/main")


def _commondir(folder: Path) -> None:
    other = folder.parent / "other"
    other.mkdir()
    git(other, "init", "-q")
    (folder / "HEAD").write_text("ref: refs/heads/main\n")
    (folder / "commondir").write_text(str(other / ".git"))


def _empty_dot_git_in_a_bare_repository(folder: Path) -> None:
    (folder / ".git").mkdir()  # not a repository: git goes on to the folder itself
    bare_parts(folder, head="symlink")


def _gitdir_file(folder: Path) -> None:
    other = folder.parent / "other"
    other.mkdir()
    git(other, "init", "-q")
    (folder / ".git").write_text(f"gitdir: {other / '.git'}\n")


LAYOUTS: dict[str, Callable[[Path], None]] = {
    "git init": lambda f: git(f, "init", "-q"),
    "git init --bare": lambda f: git(f, "init", "-q", "--bare"),
    "bare, HEAD a dangling symlink": lambda f: bare_parts(f, head="symlink"),
    "bare, refs an executable file": lambda f: bare_parts(f, refs="file"),
    "HEAD and commondir naming another repository": _commondir,
    "empty .git directory, the folder a bare repository": _empty_dot_git_in_a_bare_repository,
    "gitdir file": _gitdir_file,
}
NOT_REPOSITORIES: dict[str, Callable[[Path], None]] = {
    "plain folder": lambda f: (f / "a.txt").write_text("a"),
    "empty .git directory": lambda f: (f / ".git").mkdir(),
    "HEAD alone": lambda f: (f / "HEAD").write_text("ref: refs/heads/main\n"),
}


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    path = tmp_path / "folder"
    path.mkdir()
    return path


@pytest.mark.parametrize("layout", LAYOUTS)
def test_every_layout_git_takes_for_a_repository_is_found(folder: Path, layout: str) -> None:
    LAYOUTS[layout](folder)
    seen_by_git = git(folder, "rev-parse", "--absolute-git-dir")
    assert seen_by_git.returncode == 0, f"git does not see a repository: the layout is wrong ({seen_by_git.stderr})"
    found = discover_repository(folder)
    assert found is not None, layout
    assert os.path.realpath(found.git_dir) == os.path.realpath(seen_by_git.stdout.strip())


@pytest.mark.parametrize("layout", NOT_REPOSITORIES)
def test_what_git_does_not_take_for_a_repository_is_not_found(folder: Path, layout: str) -> None:
    NOT_REPOSITORIES[layout](folder)
    assert git(folder, "rev-parse", "--git-dir").returncode != 0
    assert discover_repository(folder) is None


def test_a_huge_dot_git_file_is_not_read_whole(folder: Path) -> None:
    with (folder / ".git").open("wb") as f:
        f.truncate(512 * 1024 * 1024)  # sparse: costs no disk
    found = discover_repository(folder)
    assert found is not None and found.work_tree == folder


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_subfolders_find_the_repository_above(folder: Path) -> None:
    git(folder, "init", "-q")
    (folder / "a" / "b").mkdir(parents=True)
    found = discover_repository(folder / "a" / "b")
    assert found is not None and found.work_tree == folder
