"""Newest-first ordering of the paths ripgrep prints, computed while it is still printing.

Sorting by modification time needs one ``stat`` per path, which for tens of thousands of
matches costs as much as ripgrep's own walk. Fed batch by batch from a worker thread (see
``run_rg(on_lines=...)``), the stats overlap the walk instead of following it.
"""

from __future__ import annotations

import heapq
import os
from pathlib import Path


class RecencyCollector:
    """Collects ``(mtime, path)`` for paths fed in batches; hands back the newest first.

    ``add`` runs on one worker thread at a time; read the results after the run ends.
    """

    def __init__(self, root: Path | None = None) -> None:
        self._base = os.fspath(root) if root is not None else None
        self._entries: list[tuple[float, str]] = []

    @property
    def count(self) -> int:
        return len(self._entries)

    def add(self, lines: list[str]) -> None:
        """Stat each path (relative ones under ``root``); unreadable ones sort last."""
        prefix = "" if self._base is None else os.path.join(self._base, "")
        entries = self._entries
        for line in lines:
            if not line:
                continue
            path = prefix + line  # rg prints relative paths without "./": plain concatenation
            try:
                entries.append((-os.stat(path).st_mtime, path))
            except OSError:
                entries.append((float("inf"), path))

    def newest(self, limit: int | None = None) -> list[str]:
        """Absolute paths, newest first (path order breaks ties), at most ``limit``."""
        ordered = sorted(self._entries) if limit is None else heapq.nsmallest(limit, self._entries)
        return [path for _, path in ordered]
