"""A malicious folder, built file by file, and engines made in it.

Every attack leaves a marker file when it runs something; the tests check the marker in
an untrusted folder (nothing ran) and, where the attack is meant to work once trusted,
in a trusted one (so the check is shown able to fail)."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from nb_agent.agent import create_engine
from nb_agent.engine import EngineConfig, EngineOptions, QueryEngine
from nb_agent.model.retry import NO_RETRIES
from nb_agent.testing import ScriptedTransport


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "home"
    path.mkdir()
    monkeypatch.setenv("HOME", str(path))
    return path


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    path = tmp_path / "downloaded"
    path.mkdir()
    return path


@pytest.fixture
def markers(tmp_path: Path) -> Path:
    """Where attacks leave their marker files (outside the folder: nothing lists it)."""
    path = tmp_path / "markers"
    path.mkdir()
    return path


def touch_command(markers: Path, name: str) -> str:
    return f"touch {markers / name}"


def write_settings(folder: Path, data: dict[str, Any], *, name: str = "settings.json") -> Path:
    path = folder / ".claude" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))
    return path


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                   env={**os.environ, "GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@b",
                        "GIT_COMMITTER_NAME": "a", "GIT_COMMITTER_EMAIL": "a@b"})  # fmt: skip


def make_hostile_repository(folder: Path, markers: Path) -> None:
    """A repository whose configuration runs a command on ``git status`` (fsmonitor), on
    reading a changed file (a filter's ``clean``), on a diff (``textconv``) and on
    ``git log`` (``log.showSignature`` with ``gpg.program``)."""
    git(folder, "init", "-q", "-b", "main")
    (folder / "data.dat").write_text("one\n")
    (folder / "notes.txt").write_text("notes\n")
    git(folder, "add", ".")
    git(folder, "commit", "-q", "-m", "first commit")
    gpg = markers / "gpg.sh"
    gpg.write_text(f"#!/bin/sh\ntouch {markers / 'PWNED_gpg'}\n")
    gpg.chmod(0o755)
    with (folder / ".git" / "config").open("a") as config:
        config.write(
            f"[core]\n\tfsmonitor = {touch_command(markers, 'PWNED_fsmonitor')}\n"
            f'[filter "evil"]\n\tclean = {touch_command(markers, "PWNED_clean")}; cat\n'
            f"\tprocess = {touch_command(markers, 'PWNED_process')}\n"
            f'[diff "evil"]\n\ttextconv = {touch_command(markers, "PWNED_textconv")}; cat\n'
            f"[log]\n\tshowSignature = true\n[gpg]\n\tprogram = {gpg}\n"
        )
    (folder / ".gitattributes").write_text("*.dat filter=evil diff=evil\n")
    (folder / "data.dat").write_text("one\ntwo\n")  # modified: status must look at it
    (folder / "new.txt").write_text("untracked\n")


MakeEngine = Callable[..., tuple[QueryEngine, list[str], ScriptedTransport]]


@pytest.fixture
def make_engine(home: Path) -> MakeEngine:
    """``make(folder, turns, **create_engine_kwargs) -> (engine, warnings, transport)``."""

    def make(cwd: Path, turns: list[Any], **kwargs: Any) -> tuple[QueryEngine, list[str], ScriptedTransport]:
        transport = ScriptedTransport(turns)
        config = EngineConfig(cwd=cwd, model="claude-sonnet-4-6", options=EngineOptions(retry_policy=NO_RETRIES))
        kwargs.setdefault("agents", False)
        engine, warnings = create_engine(config=config, transport=transport, home=home, **kwargs)
        return engine, warnings, transport

    return make


def request_text(transport: ScriptedTransport) -> str:
    """Everything the model was sent, as one string."""
    return json.dumps(transport.requests)
