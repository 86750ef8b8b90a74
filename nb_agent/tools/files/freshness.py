"""Read-before-write: the file-state cache check shared by Write and Edit (seed 003 §3.6).

A file may only be overwritten or edited if the model has Read it (not a partial view)
and it has not changed on disk since: the model's edit is based on what it saw, so a
change by the user or a linter in between must not be silently overwritten.
"""

from __future__ import annotations

import os
from pathlib import Path

from nb_agent.tools.base import FileState, ToolSession
from nb_agent.tools.files.encoding import display_text, split_lines

NOT_READ_MESSAGE = "File has not been read yet. Read it first before writing to it."
MODIFIED_MESSAGE = (
    "File has been modified since read, either by the user or by a linter. Read it again before attempting to write it."
)


def staleness_error(*, session: ToolSession, key: str, path: Path, current_text: str) -> str | None:
    """Why ``path`` may not be written now, or ``None`` when it may.

    ``current_text`` is the file's decoded content (``\\n`` endings) as it is on disk now.
    A full read is compared by content, so a bare ``touch`` does not block the edit; a
    ranged read (``offset``/``limit``) saw only some lines, so any newer mtime blocks it,
    as does a change to the lines it saw.
    """
    state = session.read_file_state.get(key)
    if state is None or state.is_partial_view:
        return NOT_READ_MESSAGE
    current = display_text(current_text)
    if state.offset is None and state.limit is None:
        return None if current == state.content else MODIFIED_MESSAGE
    if os.stat(path).st_mtime > state.timestamp:
        return MODIFIED_MESSAGE
    return None if _window(current, state) == state.content else MODIFIED_MESSAGE


def _window(text: str, state: FileState) -> str:
    """The lines of ``text`` that a ranged read recorded in ``state`` covered."""
    start = (state.offset or 1) - 1
    count = len(split_lines(state.content))
    return "".join(split_lines(text)[start : start + count])


def record_file_state(*, session: ToolSession, key: str, path: Path, text: str) -> None:
    """After Write/Edit the model knows the whole file: store it as a full view."""
    session.read_file_state[key] = FileState(content=display_text(text), timestamp=os.stat(path).st_mtime)
