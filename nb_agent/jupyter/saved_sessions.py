"""Saved sessions (the JSONL transcripts under ``.nb_agent/sessions``), for
``%agent sessions`` and ``%agent resume``: read cheaply, without the engine."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, kw_only=True)
class SessionInfo:
    session_id: str
    path: Path
    modified: float
    messages: int
    first_prompt: str


def list_sessions(directory: Path, limit: int = 50) -> list[SessionInfo]:
    """The newest ``limit`` sessions in ``directory``, newest first."""
    if not directory.is_dir():
        return []
    # Regular files only: a folder's own .nb_agent/sessions may hold a FIFO (waits forever)
    # or a link to /dev/zero (one endless line) named like a transcript.
    found = [p for p in directory.glob("*.jsonl") if p.is_file()]
    paths = sorted(found, key=lambda p: p.stat().st_mtime, reverse=True)[:limit]
    return [session_info(p) for p in paths]


def session_info(path: Path) -> SessionInfo:
    messages = 0
    first_prompt = ""
    session_id = path.stem
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                try:
                    entry = json.loads(line)
                except json.JSONDecodeError:
                    continue
                session_id = entry.get("session_id", session_id)
                if entry.get("kind") != "message":
                    continue
                message = entry.get("message") or {}
                if message.get("type") in ("user", "assistant"):
                    messages += 1
                if not first_prompt and message.get("type") == "user" and not message.get("is_meta"):
                    content = message.get("content")
                    if isinstance(content, str):
                        first_prompt = content.strip().splitlines()[0] if content.strip() else ""
    except OSError:
        pass
    return SessionInfo(
        session_id=session_id, path=path, modified=path.stat().st_mtime, messages=messages, first_prompt=first_prompt
    )


def format_time(stamp: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(stamp))
