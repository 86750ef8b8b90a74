"""Where a session's transcripts and output files go by default: ``.nb_agent`` in the folder.

The folder may be one the user merely opened, and git ships symlinks: a planted
``.nb_agent`` (or ``.nb_agent/sessions``) linking to ``~/.bashrc.d`` would make nb_agent
write its transcripts there, text the model chose included, for the next shell to source.
So the default is used only while it stays inside its folder once links are resolved;
otherwise this process keeps its sessions in a private temporary directory and says so.
"""

from __future__ import annotations

import os
import tempfile
import threading
from pathlib import Path

__all__ = ["STATE_DIR_NAME", "default_state_dir"]

STATE_DIR_NAME = ".nb_agent"

_fallbacks: dict[str, Path] = {}
_lock = threading.Lock()


def default_state_dir(base: Path) -> tuple[Path, str | None]:
    """``base/.nb_agent``, or, when links there lead out of ``base``, a private directory
    (the same one for ``base`` for the life of the process) and a warning saying why."""
    state = base / STATE_DIR_NAME
    real_base = os.path.realpath(base)
    if _inside(os.path.realpath(state / "sessions"), real_base):
        return state, None
    with _lock:
        fallback = _fallbacks.get(real_base)
        if fallback is None:
            fallback = _fallbacks[real_base] = Path(tempfile.mkdtemp(prefix="nb_agent-state-"))
    warning = (
        f"{state} links outside {base}: sessions are kept in {fallback} for now "
        "(remove the link, or set AgentMagics.state_dir)"
    )
    return fallback, warning


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)
