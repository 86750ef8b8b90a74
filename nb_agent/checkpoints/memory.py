"""The memory budget of namespace checkpoints: what copies and kept objects may hold."""

from __future__ import annotations

import os

DEFAULT_CAP = 1 << 30
"""At most 1 GB by default..."""
AVAILABLE_SHARE = 4
"""...and at most a quarter of the memory available when the budget is first needed."""


def available_memory() -> int | None:
    """Bytes the system can give without swapping (``MemAvailable``), when known."""
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def default_memory_budget() -> int:
    """The smaller of 1 GB and a quarter of the available memory."""
    available = available_memory()
    return DEFAULT_CAP if available is None else min(DEFAULT_CAP, available // AVAILABLE_SHARE)
