"""The session transcript: JSONL, one entry per line, written as messages arrive.

Each line is flushed as it is written, so a killed kernel loses at most the line being
written; reading skips a torn last line with a warning instead of failing.

A message line is ``{"kind": "message", "session_id": ..., "ts": ..., "message": {...}}``,
the message last: reading validates the message straight from its JSON (in pydantic's
Rust core, the interpreter's collector paused), so resuming a long session costs tens of
milliseconds, not the hundreds a parse into dicts and a validation of those took. Each
submission's ``result`` line counts the user and assistant messages written so far, so
listing sessions reads a transcript's first and last lines only
(:mod:`nb_agent.jupyter.saved_sessions`).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from io import BytesIO
from pathlib import Path
from typing import Any, TextIO

from pydantic_core import from_json

from nb_agent.collector import collector_paused
from nb_agent.errors import TranscriptError
from nb_agent.messages import MESSAGE_ADAPTER, PERSISTED_TYPES, now_iso
from nb_agent.transcript_lines import COUNTED_TYPES, MESSAGE_KEY, is_message_line

TRANSCRIPT_VERSION = 1

_ENCODER = json.JSONEncoder(default=str)
"""``json.dumps(..., default=str)`` builds an encoder per call; one is reused instead."""


class Transcript:
    """Appends entries to ``path`` (created with its parents on first write)."""

    def __init__(self, path: Path, *, session_id: str) -> None:
        self.path = path
        self.session_id = session_id
        self._file: TextIO | None = None
        self.messages_written = 0
        """User and assistant messages in the file (a resumed one's included: set on resume)."""

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
        if message.type in COUNTED_TYPES:
            self.messages_written += 1

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
    message_lines: int = 0
    """User and assistant message lines (tombstoned and rewound ones too), as listed."""

    def entries_of(self, kind: str) -> list[dict[str, Any]]:
        return [e for e in self.entries if e.get("kind") == kind]


def load_transcript(path: Path) -> LoadedTranscript:
    """Read a transcript; tombstoned messages are dropped, a torn line is skipped."""
    if not path.exists():
        raise TranscriptError(f"No transcript at {path}")
    lines = BytesIO(path.read_bytes()).readlines()  # memchr per line: half the time of bytes.split
    loaded = LoadedTranscript(session_id=path.stem)
    cut: dict[str, Any] = {}
    """Messages a rewind took out of the conversation, by uuid (a redo puts them back)."""
    # The core validator itself: TypeAdapter.validate_json adds a Python call and keyword parsing per line.
    validate, skip, whole = MESSAGE_ADAPTER.validator.validate_json, len(MESSAGE_KEY), is_message_line
    with collector_paused():
        for number, line in enumerate(lines, start=1):
            if number > 1 and whole(line):  # the first line also names the session
                try:  # the message is the line's last key: validated from its own JSON, the rest unparsed
                    message = validate(line[line.find(MESSAGE_KEY) + skip : line.rfind(b"}")])
                except ValueError:  # damaged, or not what this version writes: the slow path says why
                    pass
                else:
                    loaded.messages.append(message)
                    loaded.message_lines += message.type in COUNTED_TYPES
                    continue
            if not line.strip():
                continue
            message = _read_line(line, number, len(lines), path, loaded, cut)
            if message is not None:
                loaded.messages.append(message)
                loaded.message_lines += message.type in COUNTED_TYPES
        tombstoned = {m.target_uuid for m in loaded.messages if m.type == "tombstone"}
        if tombstoned:
            loaded.messages = [m for m in loaded.messages if m.type != "tombstone" and m.uuid not in tombstoned]
    return loaded


def _read_line(line: bytes, number: int, count: int, path: Path, loaded: LoadedTranscript, cut: dict[str, Any]) -> Any | None:
    """One line parsed as JSON: its message, or None (an entry taken in, or a damaged line)."""
    try:
        entry = from_json(line)  # pydantic's parser: a third of json.loads's time
    except ValueError:
        where = "last line" if number == count else f"line {number}"
        loaded.warnings.append(f"Skipped a damaged transcript entry ({where} of {path.name}); probably written while the kernel died.")
        return None
    loaded.session_id = entry.get("session_id", loaded.session_id)
    if entry.get("kind") == "message":
        try:
            return MESSAGE_ADAPTER.validate_python(entry["message"])
        except Exception as exc:  # noqa: BLE001 - a schema change must not make a session unreadable
            loaded.warnings.append(f"Skipped an unreadable message on line {number}: {exc}")
            return None
    loaded.entries.append(entry)
    _replay_rewind(loaded.messages, entry, cut)
    return None


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
