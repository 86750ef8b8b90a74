"""Protected paths that did not exist when a sandboxed command started.

A bind mount can keep an existing ``.git/hooks`` or ``.claude/`` read-only, but guarding a
path that does not exist would mean creating it in the user's project first. Instead, a
protected path the command *created* (``.claude/settings.local.json`` with allow rules,
``.mcp.json`` with a server command, a git hook) is moved aside when the command exits,
before anything outside the sandbox can read it. With bubblewrap nothing of the command
outlives it (its PID namespace ends with it), so the check cannot be raced.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

__all__ = ["quarantine_created"]


def move_aside(path: Path, *, what: str, why: str) -> str:
    """Rename ``path`` to ``NAME.sandbox-blocked-TIME`` (nothing is lost); the note to show.
    ``what`` says what the path is, ``why`` what the model should know."""
    target = path.with_name(f"{path.name}.sandbox-blocked-{time.strftime('%Y%m%d-%H%M%S')}")
    try:
        os.rename(path, target)
    except OSError as exc:
        return f"Sandbox: the command created {path}, {what}, and it could not be moved aside ({exc})."
    return f"Sandbox: the command created {path}, {what}; it was moved to {target.name} ({why})."


def quarantine_created(absent: tuple[Path, ...]) -> list[str]:
    """Move aside each path of ``absent`` that exists now; one note per path moved."""
    return [
        move_aside(path, what="which configures or runs code outside the sandbox", why="sandboxed commands may not create it")
        for path in absent
        if os.path.lexists(path)
    ]
