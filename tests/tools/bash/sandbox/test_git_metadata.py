"""A sandboxed command cannot change which configuration the user's next git reads (issue
21 §4 and the suspected ``.git/commondir`` rewrite): a submodule's config, a ``commondir``
that makes the repository read another's config, a ``.git`` file or a fresh ``.git``."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from .test_import_path import _write
from .test_wrong_classifier_e2e import run_commands

pytestmark = pytest.mark.usefixtures("needs_sandbox")
FSMONITOR = "[core]\n\tfsmonitor = touch PWNED\n"


def _git_status_runs_nothing(folder: Path) -> None:
    """The user's own git, later, outside the sandbox."""
    subprocess.run(["git", "status"], cwd=folder, capture_output=True, timeout=30)
    assert not (folder / "PWNED").exists()


async def test_commondir_and_new_git_metadata_are_undone(project: Path, home: Path, tmp_path: Path) -> None:
    evil = tmp_path / "evil"
    evil.mkdir()
    (evil / "config").write_text(FSMONITOR)
    outcomes = await run_commands(project, home, [
        _write(".git/commondir", str(evil)),
        _write(".git/modules/sub/config", FSMONITOR),
        _write(".git/worktrees/w/commondir", str(evil)),
        _write(".git/config.worktree", FSMONITOR),
    ])  # fmt: skip
    for name in ("commondir", "modules", "worktrees", "config.worktree"):
        assert not (project / ".git" / name).exists(), (name, outcomes)
    _git_status_runs_nothing(project)


async def test_existing_submodule_config_and_git_file_are_read_only(project: Path, home: Path, tmp_path: Path) -> None:
    modules = project / ".git" / "modules" / "sub"
    modules.mkdir(parents=True)
    (modules / "config").write_text("[core]\n\tbare = false\n")
    worktree = tmp_path / "linked"
    subprocess.run(["git", "-C", str(project), "worktree", "add", "-q", str(worktree)], check=True, capture_output=True)
    outcomes = await run_commands(project, home, [_write(".git/modules/sub/config", FSMONITOR)])
    assert (modules / "config").read_text() == "[core]\n\tbare = false\n" and outcomes[0][1], outcomes
    # In the linked worktree the .git file names the repository: it stays as it is.
    before = (worktree / ".git").read_text()
    outcomes = await run_commands(worktree, home, [_write(".git", f"gitdir: {tmp_path / 'evil'}")])
    assert (worktree / ".git").read_text() == before, outcomes
    _git_status_runs_nothing(worktree)


async def test_a_new_repository_is_undone_and_renaming_git_fails(project: Path, home: Path, tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    await run_commands(plain, home, [_write(".git/config", FSMONITOR) + " && " + _write(".git/HEAD", "ref: refs/heads/main")])
    assert not (plain / ".git").exists()
    outcomes = await run_commands(project, home, ["python3 -c \"import os; os.rename('.g' + 'it', 'moved')\""])
    assert outcomes[0][1] and (project / ".git" / "config").exists(), outcomes
