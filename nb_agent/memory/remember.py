"""``%agent remember``: add a line to the memory file the user picks.

``project`` is the folder's ``CLAUDE.md`` (shared with whoever gets the folder), ``local``
its ``CLAUDE.local.md`` (yours, not checked in), ``user`` your ``~/.claude/CLAUDE.md``
(every project). The line is appended as a Markdown list item. A project file that is a
link out of the folder, or not a regular file, is not written through.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Literal

from nb_agent.errors import ConfigurationError
from nb_agent.memory.files import links_outside
from nb_agent.memory.loader import LOCAL_FILE_NAME

__all__ = ["MemoryTarget", "MEMORY_TARGETS", "memory_target_path", "remember"]

MemoryTarget = Literal["project", "local", "user"]
MEMORY_TARGETS: tuple[MemoryTarget, ...] = ("project", "local", "user")


def memory_target_path(target: MemoryTarget, *, cwd: Path, home: Path) -> Path:
    """The file a memory for ``target`` goes to."""
    if target == "user":
        return home / ".claude" / "CLAUDE.md"
    return Path(os.path.abspath(cwd)) / ("CLAUDE.md" if target == "project" else LOCAL_FILE_NAME)


def remember(text: str, target: MemoryTarget, *, cwd: Path, home: Path) -> Path:
    """Append ``text`` as one list item to the target's file (created if missing) and
    return its path. Raises ``ConfigurationError`` (nothing written) when it cannot."""
    line = " ".join(text.split())
    if not line:
        raise ConfigurationError("nothing to remember: give the text after %agent remember")
    if target not in MEMORY_TARGETS:
        raise ConfigurationError(f"unknown memory file {target!r}; one of {', '.join(MEMORY_TARGETS)}")
    path = memory_target_path(target, cwd=cwd, home=home)
    if target != "user" and links_outside(path, path.parent):
        raise ConfigurationError(f"{path} is a link to a file outside {path.parent}; not writing through it")
    path.parent.mkdir(parents=True, exist_ok=True)
    flags = os.O_RDWR | os.O_APPEND | os.O_CREAT | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    fd = os.open(path, flags, 0o644)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise ConfigurationError(f"{path} is not a regular file; not writing to it")
        ends_open = info.st_size > 0 and os.pread(fd, 1, info.st_size - 1) != b"\n"
        os.write(fd, ("\n" if ends_open else "").encode() + f"- {line}\n".encode())
    finally:
        os.close(fd)
    return path
