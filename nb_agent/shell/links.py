"""What a recursive reader that follows symbolic links reaches beyond a directory.

``grep -R``, ``rg -L``, ``find -L``, ``du -L``, ``cp -rL``, ``zip -r``: every link below the
directory is followed, so a link the repository ships (``docs -> ~/.ssh``) makes the
program read outside it. The read scope lists each link's target as a read of its own;
the walk is bounded, and past the bound the reads are not known (the command asks).
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["link_targets"]

MAX_ENTRIES = 20_000


def link_targets(roots: list[Path], *, limit: int = MAX_ENTRIES) -> list[Path] | None:
    """The resolved targets of every symbolic link at or below ``roots``, following the
    links into the directories they point to (each directory once); ``None`` when more
    than ``limit`` entries would have to be looked at."""
    targets: list[Path] = []
    seen: set[str] = set()
    pending = [os.path.realpath(root) for root in roots]
    for root, original in zip(list(pending), roots):
        if os.path.islink(original):
            targets.append(Path(root))
    seen_entries = 0
    while pending:
        directory = pending.pop()
        if directory in seen:
            continue
        seen.add(directory)
        try:
            entries = list(os.scandir(directory))
        except OSError:
            continue  # not a directory, or unreadable: the program cannot go there either
        seen_entries += len(entries)
        if seen_entries > limit:
            return None
        for entry in entries:
            try:
                if entry.is_symlink():
                    target = os.path.realpath(entry.path)
                    targets.append(Path(target))
                    if os.path.isdir(target):
                        pending.append(target)
                elif entry.is_dir(follow_symlinks=False):
                    pending.append(entry.path)
            except OSError:
                continue
    return list(dict.fromkeys(targets))
