"""A planted configuration file that is a FIFO, a device or huge is refused, not waited on
or read without end: the folder's settings and ``.mcp.json`` are read before any trust."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from nb_agent.agent import create_engine
from nb_agent.config_text import read_config_text
from nb_agent.folder_trust import folder_trust

PLANTED = [".claude/settings.json", ".claude/settings.local.json", ".mcp.json"]


def _fifo(path: Path) -> None:
    os.mkfifo(path)


def _dev_zero(path: Path) -> None:
    path.symlink_to("/dev/zero")  # git can ship this symlink


def _huge(path: Path) -> None:
    with path.open("wb") as f:
        f.truncate(64 * 1024 * 1024)  # sparse: costs no disk


KINDS: dict[str, Callable[[Path], None]] = {"fifo": _fifo, "/dev/zero": _dev_zero, "huge": _huge}


@pytest.mark.timeout(20)
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", PLANTED)
def test_a_planted_special_file_is_skipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, kind: str) -> None:
    home, folder = tmp_path / "home", tmp_path / "folder"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    (folder / ".claude").mkdir(parents=True)
    KINDS[kind](folder / name)
    assert folder_trust(folder, home=home).state == "not_needed"
    engine, warnings = create_engine(cwd=folder, home=home, agents=False)
    assert engine.permission_policy.mode == "default"
    assert any(name.rsplit("/", 1)[-1] in w for w in warnings), warnings  # said, not silent


def test_a_regular_file_reads_as_text(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"permissions": {"deny": ["Read(x)"]}}))
    assert json.loads(read_config_text(path)) == {"permissions": {"deny": ["Read(x)"]}}
    with pytest.raises(FileNotFoundError):
        read_config_text(tmp_path / "missing.json")
    with pytest.raises(OSError, match="larger than"):
        read_config_text(path, limit=10)
