"""Where a session's transcripts and output files go by default: ``.nb_agent`` in the folder.

The folder may be one the user merely opened, and git ships symlinks: a planted
``.nb_agent`` (or ``.nb_agent/sessions``) linking to ``~/.bashrc.d`` would make nb_agent
write its transcripts there, text the model chose included, for the next shell to source.
So the default is used only while it stays inside its folder once links are resolved;
otherwise this process keeps its sessions in a private temporary directory and says so.

The folder may also be one this process cannot write: a kernel started by a gateway runs in
its image's folder (often read-only), on another machine than the notebook. Sessions then go
where it can write: ``~/.nb_agent/projects/<the folder's path>``, else a private temporary
directory, and it says so.
"""

from __future__ import annotations

import os
import re
import tempfile
import threading
from pathlib import Path

__all__ = ["CHECKPOINTS_DIR_ENV", "STATE_DIR_NAME", "checkpoints_dir", "default_state_dir", "home_state_dir"]

STATE_DIR_NAME = ".nb_agent"
CHECKPOINTS_DIR_ENV = "NB_AGENT_CHECKPOINTS_DIR"

_fallbacks: dict[str, Path] = {}
_lock = threading.Lock()


def default_state_dir(base: Path) -> tuple[Path, str | None]:
    """``base/.nb_agent``, or, when links there lead out of ``base`` or this process cannot
    write there, another directory (see the module docstring) and a warning saying why."""
    state = base / STATE_DIR_NAME
    real_base = os.path.realpath(base)
    if not _inside(os.path.realpath(state / "sessions"), real_base):
        fallback = _private(real_base)
        return fallback, (
            f"{state} links outside {base}: sessions are kept in {fallback} for now "
            "(remove the link, or set AgentMagics.state_dir)"
        )
    if os.path.isdir(base) and _writable(state / "sessions"):  # never make the folder itself
        return state, None
    home = home_state_dir(base)
    where = home if home is not None and _writable(home / "sessions") else _private(real_base)
    return where, f"{base} is not writable on the kernel's machine: sessions are kept in {where} (or set AgentMagics.state_dir)"


def home_state_dir(base: Path) -> Path | None:
    """``~/.nb_agent/projects/<base's path>``: the state of a folder this process cannot write
    (``None`` when there is no home directory)."""
    home = os.path.expanduser("~")
    if not home or home == "~":
        return None
    name = re.sub(r"[^A-Za-z0-9._-]", "-", os.path.realpath(base)).strip("-") or "root"
    return Path(home) / STATE_DIR_NAME / "projects" / name


def _writable(path: Path) -> bool:
    """Whether this process could create ``path`` (its first existing ancestor is a
    writable directory) or write into it (it exists and is one)."""
    current = path
    while not os.path.lexists(current):
        if current.parent == current:
            return False
        current = current.parent
    return os.path.isdir(current) and os.access(current, os.W_OK | os.X_OK)


def _private(real_base: str) -> Path:
    """A private temporary directory, the same one for ``real_base`` for the life of the process."""
    with _lock:
        fallback = _fallbacks.get(real_base)
        if fallback is None:
            fallback = _fallbacks[real_base] = Path(tempfile.mkdtemp(prefix="nb_agent-state-"))
    return fallback


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def checkpoints_dir() -> Path:
    """Where the shadow repositories of file checkpoints are kept: the user's own state
    directory (``~/.nb_agent/checkpoints``), never a folder the agent works in; or
    ``$NB_AGENT_CHECKPOINTS_DIR`` when it is an absolute path (a relative one would be
    read from whatever folder the kernel is in)."""
    moved = Path(os.path.expanduser(os.environ.get(CHECKPOINTS_DIR_ENV, "")))
    if moved.is_absolute():
        return moved
    home = Path(os.environ.get("HOME") or Path.home())
    return home / STATE_DIR_NAME / "checkpoints"
