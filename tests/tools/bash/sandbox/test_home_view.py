"""What a sandboxed command sees of the home directory follows Read's scope (issue 21 §4):
personal files outside the working directories are not there (shell history,
``~/.kaggle/kaggle.json``, ``~/.cache/huggingface/token``, another project's ``.env``),
while the working directory, the kernel's Python and programs on ``PATH`` under ``~`` are.
The home is under ``/var/tmp`` (``/tmp`` is replaced inside the sandbox)."""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from .test_jupyter_runtime import _cat
from .test_wrong_classifier_e2e import run_commands

pytestmark = pytest.mark.usefixtures("needs_sandbox")
PERSONAL = {".bash_history": "ls\nexport TOKEN=hist-secret\n", ".kaggle/kaggle.json": '{"key": "kaggle-secret"}',
            ".cache/huggingface/token": "hf_secret", "other-project/.env": "API_KEY=env-secret"}  # fmt: skip


@pytest.fixture
def real_home(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    home = Path("/var/tmp") / f"nb_agent-home-{uuid.uuid4().hex[:12]}"
    for relative, content in PERSONAL.items():
        (home / relative).parent.mkdir(parents=True, exist_ok=True)
        (home / relative).write_text(content)
    tool = home / "tools" / "bin" / "mytool"
    tool.parent.mkdir(parents=True)
    tool.write_text("#!/bin/sh\necho tool-ran\n")
    tool.chmod(0o755)
    (home / "work" / "project").mkdir(parents=True)
    (home / "work" / "project" / "notes.txt").write_text("project notes\n")
    monkeypatch.setenv("PATH", f"{tool.parent}:{os.environ['PATH']}")
    try:
        yield home
    finally:
        shutil.rmtree(home, ignore_errors=True)


async def test_only_the_working_directory_and_programs_of_the_home_are_visible(real_home: Path) -> None:
    project = real_home / "work" / "project"
    commands = [_cat(real_home / relative) for relative in PERSONAL]
    commands += ["cat notes.txt", "mytool", "python3 -c 'import sys; print(sys.version_info[0])'", "git --version", "ls -A ~"]
    outcomes = await run_commands(project, real_home, commands)
    for (text, _), secret in zip(outcomes, ["hist-secret", "kaggle-secret", "hf_secret", "env-secret"]):
        assert secret not in text and "No such file" in text, text
    assert "project notes" in outcomes[4][0] and "tool-ran" in outcomes[5][0] and outcomes[6][0].strip() == "3"
    assert "git version" in outcomes[7][0]
    listed = set(outcomes[8][0].split())
    assert ".bash_history" not in listed and ".kaggle" not in listed and "other-project" not in listed, listed
