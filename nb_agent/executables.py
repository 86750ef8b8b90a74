"""Finding programs on ``PATH`` without finding them in the kernel's folder.

An empty or relative ``PATH`` entry (``PATH=:/usr/bin`` or ``.:$PATH``, common in old
dotfiles) is resolved against the current directory: ``bash``, ``bwrap`` or ``rg`` would
then be a file the folder ships, run outside any sandbox by a tool that asks nothing
(Grep's ripgrep, every Bash command's shell), and ``ls`` inside a command would be the
folder's too. nb_agent looks programs up, and gives Bash commands a ``PATH``, with the
absolute entries only.
"""

from __future__ import annotations

import os
import shutil

__all__ = ["search_path", "which"]


def search_path(value: str | None = None) -> str:
    """``value`` (default: this process's ``PATH``) without empty or relative entries."""
    value = os.environ.get("PATH", os.defpath) if value is None else value
    return os.pathsep.join(entry for entry in value.split(os.pathsep) if os.path.isabs(entry))


def which(name: str) -> str | None:
    """``shutil.which`` over :func:`search_path` only."""
    return shutil.which(name, path=search_path())
