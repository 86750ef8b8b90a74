"""WebFetch's cache: a page fetched in the last 15 minutes is not fetched again."""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar

CACHE_TTL_S = 15 * 60
MAX_ENTRIES = 64

T = TypeVar("T")


class TtlCache(Generic[T]):
    """A small LRU whose entries expire ``ttl_s`` seconds after they were stored."""

    def __init__(self, *, ttl_s: float = CACHE_TTL_S, max_entries: int = MAX_ENTRIES, clock: Callable[[], float] = time.monotonic) -> None:
        self._ttl_s = ttl_s
        self._max = max_entries
        self._clock = clock
        self._entries: OrderedDict[str, tuple[float, T]] = OrderedDict()

    def get(self, key: str) -> T | None:
        entry = self._entries.get(key)
        if entry is None:
            return None
        stored, value = entry
        if self._clock() - stored >= self._ttl_s:
            del self._entries[key]
            return None
        self._entries.move_to_end(key)
        return value

    def put(self, key: str, value: T) -> None:
        self._entries[key] = (self._clock(), value)
        self._entries.move_to_end(key)
        while len(self._entries) > self._max:
            self._entries.popitem(last=False)

    def __len__(self) -> int:
        return len(self._entries)
