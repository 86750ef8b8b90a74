"""Reading a configuration file a folder may have planted: a regular file, of bounded size.

A project's ``.claude/settings.json`` or ``.mcp.json`` is read before anyone has trusted the
folder, so it may be a FIFO (opening it waits forever for a writer) or a symlink to
``/dev/zero`` (reading it never ends and fills memory); git can ship the symlink. Both are
refused like an unreadable file.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

__all__ = ["CONFIG_FILE_LIMIT", "read_config_text"]

CONFIG_FILE_LIMIT = 32 * 1024 * 1024
"""Bytes; far above any real settings file (``~/.claude.json`` keeps history and grows)."""


def read_config_text(path: Path, *, limit: int = CONFIG_FILE_LIMIT, errors: str = "strict") -> str:
    """The UTF-8 text of ``path``. Raises ``FileNotFoundError`` when it is missing, another
    ``OSError`` when it is not a regular file or is bigger than ``limit``, and
    ``UnicodeDecodeError`` when it is not UTF-8 (unless ``errors`` says otherwise)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    with os.fdopen(fd, "rb") as file:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(f"{path} is not a regular file")
        data = file.read(limit + 1)
    if len(data) > limit:
        raise OSError(f"{path} is larger than {limit // (1024 * 1024)} MB")
    return data.decode("utf-8", errors=errors)
