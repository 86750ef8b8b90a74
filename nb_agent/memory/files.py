"""One memory file: what it is, whose it is, and reading it safely.

A project's memory files are read before anyone trusts the folder and sent to the model
without asking, so reading one must never wait (a FIFO), never run away (a link to
``/dev/zero``), and never carry another file in through a link (``CLAUDE.md ->
~/.ssh/id_rsa``). The user's own files (``~/.claude``, the managed file) may link anywhere.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

__all__ = [
    "MAX_MEMORY_FILE_CHARS",
    "MemoryFile",
    "MemoryOwner",
    "MemoryReadError",
    "SkippedMemory",
    "links_outside",
    "read_memory_text",
]

MAX_MEMORY_FILE_CHARS = 40_000
"""Each memory file is read up to this many characters (Claude Code warns past 40k)."""

MemoryOwner = Literal["managed", "user", "project", "local"]
"""Whose instructions: the administrator's (``/etc/claude-code``), the user's own
(``~/.claude``), the project's (checked in), or the user's private ones for this project
(``CLAUDE.local.md``)."""

_LABELS: dict[MemoryOwner, str] = {
    "managed": "managed instructions for all users of this machine",
    "user": "user's private global instructions",
    "project": "project instructions",
    "local": "user's private project instructions, not checked in",
}


@dataclass(frozen=True, kw_only=True)
class MemoryFile:
    """A memory file that was read."""

    path: Path
    owner: MemoryOwner
    text: str
    folder: Path
    """The folder its imports must stay in (a project file's; the user's may leave it)."""
    imported_by: Path | None = None
    truncated: bool = False
    rule_paths: tuple[str, ...] = ()
    """For a ``.claude/rules`` file with ``paths``: the globs of the files it is about."""
    rule_base: Path | None = None
    """What those globs are relative to: the folder holding the ``.claude`` folder (the
    working directory for the user's own rules)."""

    @property
    def label(self) -> str:
        return _LABELS[self.owner]

    @property
    def users_own(self) -> bool:
        return self.owner in ("managed", "user")

    def as_context(self) -> str:
        """How the model sees it (the wording Claude Code uses)."""
        return f"Contents of {self.path} ({self.label}):\n\n{self.text}"


@dataclass(frozen=True, kw_only=True)
class SkippedMemory:
    """A memory file or import that was not read, and why (``%agent memory`` shows it)."""

    path: Path
    reason: str
    imported_by: Path | None = None


class MemoryReadError(Exception):
    """Internal: a memory file cannot be read; the message says why, for the user."""


def links_outside(path: Path, folder: Path) -> bool:
    """Does ``path`` (a file spelled inside ``folder``) resolve to a file outside it?"""
    real_folder = os.path.realpath(folder).rstrip(os.sep) + os.sep
    return not os.path.realpath(path).startswith(real_folder)


def read_memory_text(path: Path, *, limit: int = MAX_MEMORY_FILE_CHARS) -> tuple[str, bool]:
    """The UTF-8 text of ``path`` up to ``limit`` characters and whether it was cut.
    Raises :class:`MemoryReadError` when it is missing, not a regular file, or not text."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except FileNotFoundError:
        raise MemoryReadError("not found") from None
    except OSError as exc:
        raise MemoryReadError(f"cannot be read ({exc.strerror or exc})") from None
    with os.fdopen(fd, "rb") as file:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise MemoryReadError("not a regular file")
        data = file.read(4 * (limit + 1))  # UTF-8 is at most 4 bytes a character
    if b"\0" in data:
        raise MemoryReadError("not a text file")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < len(data) - 3:  # not merely a character cut at the end of what was read
            raise MemoryReadError("not UTF-8 text") from None
        text = data[: exc.start].decode("utf-8")
    if len(text) > limit:
        return text[:limit] + "\n…(truncated)", True
    return text, False
