"""What a read-only call will read (SPEC §8, issue 11).

A tool describes its reads as a :class:`ReadPlan`; the permission layer judges every
path in it the way Read is judged (:func:`nb_agent.permissions.read_plan.check_read_plan`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

__all__ = ["PathRead", "ReadKind", "ReadPlan"]

ReadKind = Literal["file", "tree", "names"]


@dataclass(frozen=True, kw_only=True)
class PathRead:
    """One path a call reads."""

    path: Path
    """Absolute; ``..`` and symlinks kept (every spelling is checked)."""
    kind: ReadKind = "file"
    """``file``: this path's contents; ``tree``: the contents of everything below it;
    ``names``: only the names and metadata of the path (and of a directory's entries)."""


@dataclass(frozen=True, kw_only=True)
class ReadPlan:
    """The paths a call reads, or why they cannot be known before it runs."""

    reads: tuple[PathRead, ...] = ()
    writes: tuple[Path, ...] = ()
    """Files written by output redirections (listed only when asked for)."""
    unknown: str | None = None
    """Set when the reads cannot all be listed statically (a path computed at run time,
    git outside the project's repository, ``xargs`` reading paths from its input, ...);
    ``reads`` then holds those that could be (possibly none)."""
