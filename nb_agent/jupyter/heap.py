"""Give the memory a finished conversation freed back to the system.

A long conversation leaves the kernel's heap at its high-water mark: its messages, results
and responses are freed when ``%agent new`` drops them, but glibc's allocator keeps the
freed pages in the process (measured with ``bench/kernel_memory.py``: of +16 MB after 100
turns, 0.5 MB were Python objects still referenced, the rest freed memory the allocator
kept). ``malloc_trim(0)`` hands back the free pages (what pymalloc arenas and other
libraries still hold partly in use stays). On a C library without it (macOS, musl) nothing
is done.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import logging
from functools import cache
from typing import Any

log = logging.getLogger(__name__)


@cache
def _malloc_trim() -> Any | None:
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    try:
        return ctypes.CDLL(name).malloc_trim
    except (OSError, AttributeError):  # no such C library, or not glibc
        return None


def release_freed_memory() -> bool:
    """Collect cycles, then return the heap's free pages to the system; False when the C
    library cannot (only glibc has ``malloc_trim``)."""
    gc.collect()
    trim = _malloc_trim()
    if trim is None:
        return False
    trim(0)
    return True


__all__ = ["release_freed_memory"]
