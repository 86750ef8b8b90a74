"""The file-state cache (seed 003 §3.6): what the model has read, for read-before-edit.

An LRU bounded by the size of the content it holds (25 MB by default): the oldest entries
are dropped first, so a long session cannot grow it without bound. It belongs to one
conversation: a new or resumed conversation starts with an empty cache (it has read
nothing), so an edit there must Read the file first.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from nb_agent.tools.base import FileState

FILE_STATE_CACHE_MAX_BYTES = 25 * 1024 * 1024


class FileStateCache:
    """``path -> FileState``, least recently used first out once past ``max_bytes``."""

    def __init__(self, max_bytes: int = FILE_STATE_CACHE_MAX_BYTES) -> None:
        self.max_bytes = max_bytes
        self._entries: OrderedDict[str, FileState] = OrderedDict()
        self._sizes: dict[str, int] = {}
        self.total_bytes = 0

    def get(self, key: str) -> FileState | None:
        state = self._entries.get(key)
        if state is not None:
            self._entries.move_to_end(key)
        return state

    def __getitem__(self, key: str) -> FileState:
        state = self.get(key)
        if state is None:
            raise KeyError(key)
        return state

    def __contains__(self, key: object) -> bool:
        return key in self._entries

    def __len__(self) -> int:
        return len(self._entries)

    def __setitem__(self, key: str, state: FileState) -> None:
        self.pop(key)
        size = len(state.content.encode("utf-8", errors="surrogatepass"))
        self._entries[key] = state
        self._sizes[key] = size
        self.total_bytes += size
        while self.total_bytes > self.max_bytes and len(self._entries) > 1:
            oldest = next(iter(self._entries))
            self.pop(oldest)

    def pop(self, key: str) -> FileState | None:
        state = self._entries.pop(key, None)
        if state is not None:
            self.total_bytes -= self._sizes.pop(key)
        return state

    def clone(self) -> FileStateCache:
        """An independent copy (a subagent's: its reads do not vouch for its parent)."""
        copy = FileStateCache(self.max_bytes)
        copy._entries = OrderedDict(self._entries)
        copy._sizes = dict(self._sizes)
        copy.total_bytes = self.total_bytes
        return copy

    def clear(self) -> None:
        self._entries.clear()
        self._sizes.clear()
        self.total_bytes = 0
