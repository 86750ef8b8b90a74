"""The shape of a transcript's lines, for readers that must not parse them whole.

:class:`nb_agent.transcript.Transcript` writes ``{"kind": KIND, "session_id": ..., "ts":
..., **payload}``; a message line's payload is ``"message": {"type": ..., ...}``, so the
message is the line's last key and its type its first. Readers use that to validate a
message straight from its JSON (resume) or to count messages without parsing anything
(the session listing). Standard library only: the magics list sessions before the engine
is imported.
"""

from __future__ import annotations

MESSAGE_LINE_START = b'{"kind": "message", '
MESSAGE_KEY = b', "message": '
RESULT_LINE_START = b'{"kind": "result", '
COUNTED_TYPES = frozenset({"user", "assistant"})
"""The messages a session listing counts."""
_COUNTED_STARTS = tuple(b'{"type": "%s"' % kind.encode() for kind in sorted(COUNTED_TYPES))


_LINE_ENDS = (b"}", b"}\n")


def is_message_line(line: bytes) -> bool:
    """Whether ``line`` (with or without its newline) looks like a whole message line
    (nothing parsed)."""
    return line.startswith(MESSAGE_LINE_START) and line.endswith(_LINE_ENDS)


def message_json(line: bytes) -> bytes | None:
    """The message's JSON in a message line (None: not a whole message line)."""
    if not is_message_line(line):
        return None
    at = line.find(MESSAGE_KEY)
    return None if at < 0 else line[at + len(MESSAGE_KEY) : line.rfind(b"}")]


def is_counted_message(line: bytes) -> bool:
    """A whole line holding a user or assistant message (no JSON parsed)."""
    raw = message_json(line)
    return raw is not None and raw.startswith(_COUNTED_STARTS)


__all__ = ["COUNTED_TYPES", "MESSAGE_KEY", "MESSAGE_LINE_START", "RESULT_LINE_START", "is_counted_message", "is_message_line", "message_json"]
