"""The index's gitlinks, read without git, against what real git wrote."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from nb_agent.git.gitlinks import gitlink_paths

ENV = {**os.environ, "GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@b", "GIT_COMMITTER_NAME": "a", "GIT_COMMITTER_EMAIL": "a@b"}


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, env=ENV)


def _top(tmp_path: Path, *, object_format: str = "sha1") -> Path:
    inner = tmp_path / "inner"
    inner.mkdir()
    git(inner, "init", "-q", f"--object-format={object_format}")
    git(inner, "commit", "-q", "--allow-empty", "-m", "i")
    top = tmp_path / "top"
    top.mkdir()
    git(top, "init", "-q", f"--object-format={object_format}")
    for name in ("a.txt", "deep/dir/b.txt", "deep/dir/c-with-a-long-name-" + "x" * 80 + ".txt"):
        (top / name).parent.mkdir(parents=True, exist_ok=True)
        (top / name).write_text(name)
    git(top, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(inner), "deep/lib")
    git(top, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(inner), "zz")
    git(top, "add", ".")
    return top


@pytest.mark.parametrize("version", ["2", "3", "4"])
def test_every_index_version(tmp_path: Path, version: str) -> None:
    top = _top(tmp_path)
    git(top, "update-index", "--index-version", version)
    if version == "3":
        git(top, "update-index", "--skip-worktree", "a.txt")  # an entry with extended flags
    assert gitlink_paths(top / ".git" / "index") == ["deep/lib", "zz"]


def test_sha256_repositories(tmp_path: Path) -> None:
    top = _top(tmp_path, object_format="sha256")
    assert gitlink_paths(top / ".git" / "index") == ["deep/lib", "zz"]


def test_no_index_and_an_index_not_understood(tmp_path: Path) -> None:
    assert gitlink_paths(tmp_path / "missing") == []
    top = _top(tmp_path)
    index = top / ".git" / "index"
    data = index.read_bytes()
    for broken in (b"XXXX" + data[4:], data[:40], data[:4] + b"\0\0\0\x09" + data[8:]):
        index.write_bytes(broken)
        assert gitlink_paths(index) is None
    index.write_bytes(data)
    git(top, "update-index", "--split-index")  # the entries live in a shared index too
    assert gitlink_paths(index) is None
