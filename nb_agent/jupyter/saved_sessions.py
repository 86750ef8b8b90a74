"""Saved sessions (the JSONL transcripts under ``.nb_agent/sessions``), for
``%agent sessions`` and ``%agent resume``: read cheaply, without the engine.

A listing reads a transcript's head (its session id and first prompt) and its tail: each
submission's ``result`` line carries the number of messages so far, and the message lines
after the last one are counted by their first bytes. A transcript written before those
counts existed is counted line by line, still without parsing its lines."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from nb_agent.transcript_lines import RESULT_LINE_START, is_counted_message

HEAD_BYTES = 256 * 1024
TAIL_BYTES = 256 * 1024


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
    session_id, first_prompt, messages = path.stem, "", 0
    try:
        size = path.stat().st_size
        with open(path, "rb") as f:
            head = f.read(HEAD_BYTES)
            session_id, first_prompt = _head_facts(head, complete=size <= HEAD_BYTES, session_id=session_id)
            tail = head if size <= TAIL_BYTES else _tail(f, size)
            counted = _count_from_tail(tail, whole=size <= TAIL_BYTES)
            messages = counted if counted is not None else _count_all(f)
    except OSError:
        pass
    return SessionInfo(
        session_id=session_id, path=path, modified=path.stat().st_mtime, messages=messages, first_prompt=first_prompt
    )


def _lines(chunk: bytes, *, cut_first: bool, cut_last: bool) -> list[bytes]:
    lines = chunk.split(b"\n")
    return lines[1 if cut_first else 0 : -1 if cut_last and len(lines) > 1 else None]


def _head_facts(head: bytes, *, complete: bool, session_id: str) -> tuple[str, str]:
    """The session id (its first line's) and the first prompt the user typed."""
    first = True
    for line in _lines(head, cut_first=False, cut_last=not complete):
        try:
            entry = json.loads(line)
        except (json.JSONDecodeError, UnicodeDecodeError):
            continue
        if first:
            session_id, first = entry.get("session_id", session_id), False
        message = (entry.get("message") or {}) if entry.get("kind") == "message" else {}
        if message.get("type") == "user" and not message.get("is_meta"):
            content = message.get("content")
            if isinstance(content, str):
                return session_id, content.strip().splitlines()[0] if content.strip() else ""
    return session_id, ""


def _tail(f: BinaryIO, size: int) -> bytes:
    f.seek(size - TAIL_BYTES)
    return f.read(TAIL_BYTES)


def _count_from_tail(tail: bytes, *, whole: bool) -> int | None:
    """Messages in the file: the last ``result`` line's count plus the messages after it;
    None when the tail holds no such line (and is not the whole file)."""
    after = 0
    for line in reversed(_lines(tail, cut_first=not whole, cut_last=False)):
        if line.startswith(RESULT_LINE_START):
            try:
                count = json.loads(line).get("messages")
            except (json.JSONDecodeError, UnicodeDecodeError):
                count = None
            if isinstance(count, int):
                return count + after
        elif is_counted_message(line):
            after += 1
    return after if whole else None


def _count_all(f: BinaryIO) -> int:
    f.seek(0)
    return sum(1 for line in f if is_counted_message(line.rstrip(b"\n")))


def format_time(stamp: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(stamp))
