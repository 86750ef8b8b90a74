"""Fixtures for the sandbox tests: a project (a git repository), a fake home with secrets,
and ``needs_sandbox``, which skips only when no sandbox can start here (with the reason)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from nb_agent.tools.bash.sandbox import probe_availability

SECRET = "-----BEGIN OPENSSH PRIVATE KEY----- sandbox-test-secret"


@pytest.fixture
def needs_sandbox() -> None:
    availability = probe_availability()
    if not availability.available:
        pytest.skip(f"no OS sandbox here: {availability.reason} (fix: {availability.fix})")


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A fake home directory with an SSH key, AWS credentials and a .netrc."""
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text(SECRET + "\n")
    (home / ".aws").mkdir()
    (home / ".aws" / "credentials").write_text("[default]\naws_secret_access_key = " + SECRET + "\n")
    (home / ".netrc").write_text("machine example.com password " + SECRET + "\n")
    (home / ".bashrc").write_text("# rc\n")
    return home


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A git repository with one commit and a few files."""
    project = tmp_path / "project"
    (project / "src").mkdir(parents=True)
    (project / "src" / "app.py").write_text("def main():\n    return 'needle'\n")
    (project / "README.md").write_text("# demo project\n")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"]
    subprocess.run([*git, "init", "-q", "-b", "main", str(project)], check=True)
    subprocess.run([*git, "-C", str(project), "add", "."], check=True)
    subprocess.run([*git, "-C", str(project), "commit", "-q", "-m", "first commit"], check=True)
    return project
