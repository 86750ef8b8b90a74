"""Listing saved sessions reads only regular files: a folder's own ``.nb_agent/sessions`` may
hold a FIFO or a link to ``/dev/zero`` named like a transcript."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from nb_agent.jupyter.saved_sessions import list_sessions


@pytest.mark.timeout(20)
def test_planted_special_files_are_not_listed(tmp_path: Path) -> None:
    sessions = tmp_path / ".nb_agent" / "sessions"
    sessions.mkdir(parents=True)
    os.mkfifo(sessions / "fifo.jsonl")
    (sessions / "zero.jsonl").symlink_to("/dev/zero")
    entry = {"kind": "message", "session_id": "real", "message": {"type": "user", "content": "hello there"}}
    (sessions / "real.jsonl").write_text(json.dumps(entry) + "\n")
    found = list_sessions(sessions)
    assert [(s.session_id, s.first_prompt) for s in found] == [("real", "hello there")]
