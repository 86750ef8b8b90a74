"""The session transcript: JSONL, one entry per line, written as messages arrive.

Each line is flushed as it is written, so a killed kernel loses at most the line being
written; reading skips a torn last line with a warning instead of failing.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from nb_agent.errors import TranscriptError
from nb_agent.messages import MESSAGE_ADAPTER, PERSISTED_TYPES, now_iso

TRANSCRIPT_VERSION = 1

_ENCODER = json.JSONEncoder(default=str)
"""``json.dumps(..., default=str)`` builds an encoder per call; one is reused instead."""


class Transcript:
    """Appends entries to ``path`` (created with its parents on first write)."""

    def __init__(self, path: Path, *, session_id: str) -> None:
        self.path = path
        self.session_id = session_id
        self._file: TextIO | None = None

    def _open(self) -> TextIO:
        if self._file is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._file = open(self.path, "a", encoding="utf-8")
        return self._file

    def write_entry(self, kind: str, **payload: Any) -> None:
        line = _ENCODER.encode({"kind": kind, "session_id": self.session_id, "ts": now_iso(), **payload})
        f = self._open()
        f.write(line + "\n")
        f.flush()

    def write_message(self, message: Any) -> None:
        if message.type not in PERSISTED_TYPES:
            return
        self.write_entry("message", message=MESSAGE_ADAPTER.dump_python(message, mode="json"))

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


@dataclass(kw_only=True)
class LoadedTranscript:
    """What a transcript file holds, rebuilt."""

    session_id: str
    messages: list[Any] = field(default_factory=list)
    entries: list[dict[str, Any]] = field(default_factory=list)
    """Every non-message entry (metadata, usage, permission decisions, replacements)."""
    warnings: list[str] = field(default_factory=list)

    def entries_of(self, kind: str) -> list[dict[str, Any]]:
        return [e for e in self.entries if e.get("kind") == kind]


def load_transcript(path: Path) -> LoadedTranscript:
    """Read a transcript; tombstoned messages are dropped, a torn line is skipped."""
    if not path.exists():
        raise TranscriptError(f"No transcript at {path}")
    raw = path.read_bytes()
    lines = raw.split(b"\n")
    loaded = LoadedTranscript(session_id=path.stem)
    cut: dict[str, Any] = {}
    """Messages a rewind took out of the conversation, by uuid (a redo puts them back)."""
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
        except (json.JSONDecodeError, UnicodeDecodeError):
            where = "last line" if number >= len(lines) - 1 else f"line {number}"
            loaded.warnings.append(f"Skipped a damaged transcript entry ({where} of {path.name}); probably written while the kernel died.")
            continue
        loaded.session_id = entry.get("session_id", loaded.session_id)
        if entry.get("kind") == "message":
            try:
                loaded.messages.append(MESSAGE_ADAPTER.validate_python(entry["message"]))
            except Exception as exc:  # a schema change must not make a session unreadable
                loaded.warnings.append(f"Skipped an unreadable message on line {number}: {exc}")
        else:
            loaded.entries.append(entry)
            _replay_rewind(loaded.messages, entry, cut)
    tombstoned = {m.target_uuid for m in loaded.messages if m.type == "tombstone"}
    loaded.messages = [m for m in loaded.messages if m.type != "tombstone" and m.uuid not in tombstoned]
    return loaded


REWIND_KIND = "rewind"
"""A transcript entry: the conversation was cut back to just after ``to_uuid`` (``None``:
to nothing); the messages after it stay in the file, no longer part of the conversation."""
REWIND_REDO_KIND = "rewind_redo"
"""A transcript entry: the messages ``uuids`` a rewind took out are part of the conversation again."""


def _replay_rewind(messages: list[Any], entry: dict[str, Any], cut: dict[str, Any]) -> None:
    kind = entry.get("kind")
    if kind == REWIND_KIND:
        target = entry.get("to_uuid")
        keep = 0
        if target is not None:
            keep = next((i + 1 for i, m in enumerate(messages) if m.uuid == target), len(messages))
        for message in messages[keep:]:
            cut[message.uuid] = message
        del messages[keep:]
    elif kind == REWIND_REDO_KIND:
        messages.extend(cut.pop(uuid) for uuid in entry.get("uuids", []) if uuid in cut)


def repair_transcript(path: Path) -> None:
    """Cut a torn last line so later appends start on a fresh line."""
    try:
        with open(path, "rb+") as f:
            f.seek(0, os.SEEK_END)
            size = f.tell()
            if size == 0:
                return
            f.seek(size - 1)
            if f.read(1) != b"\n":
                f.write(b"\n")
    except FileNotFoundError:
        return
