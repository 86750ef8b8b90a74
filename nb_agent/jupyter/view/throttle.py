"""Coalescing widget updates: whatever the token rate, a bounded number of messages.

Renderers mark *keys* dirty (a text block, a tool card, the status line) as events
arrive; nothing is sent then. :meth:`UpdateScheduler.tick`, called by the run's ticker,
renders dirty keys at most ``max_flushes_per_s`` times a second, oldest first, while a
token bucket of comm messages (``max_messages_per_s``, small burst) has credit. A render
reports how many comm messages it sent (creating a widget costs its ``comm_open``), so
the bucket bounds the real traffic, status line included.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable

DEFAULT_MAX_FLUSHES_PER_S = 25.0
DEFAULT_MAX_MESSAGES_PER_S = 25.0
DEFAULT_BURST = 2.0
WIDGET_COST = 2
"""Comm messages a widget costs over its life: its ``comm_open`` and its ``comm_close``."""


class CommBudget:
    """A token bucket of comm messages; spending may go negative (a widget must be
    created whole), which delays the next renders until the debt is paid back."""

    def __init__(
        self,
        *,
        rate: float = DEFAULT_MAX_MESSAGES_PER_S,
        burst: float = DEFAULT_BURST,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.rate = rate
        self.burst = burst
        self._clock = clock
        self._tokens = burst
        self._stamp = clock()
        self.spent = 0
        """Messages spent in total (for tests and benchmarks)."""

    def _refill(self, now: float) -> None:
        if now > self._stamp:
            self._tokens = min(self.burst, self._tokens + (now - self._stamp) * self.rate)
            self._stamp = now

    def available(self, now: float | None = None) -> float:
        self._refill(self._clock() if now is None else now)
        return self._tokens

    def spend(self, messages: int, now: float | None = None) -> None:
        self._refill(self._clock() if now is None else now)
        self._tokens -= messages
        self.spent += messages


class UpdateScheduler:
    """Collects dirty keys and renders them within the flush-rate and message budgets."""

    def __init__(
        self,
        render: Callable[[Hashable], int],
        *,
        max_flushes_per_s: float = DEFAULT_MAX_FLUSHES_PER_S,
        budget: CommBudget | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._render = render
        self._clock = clock
        self.min_flush_interval = 1.0 / max_flushes_per_s if max_flushes_per_s > 0 else 0.0
        self.budget = budget or CommBudget(clock=clock)
        self._dirty: dict[Hashable, float] = {}
        """key -> when it was first marked since its last render (insertion = age order)."""
        self._min_interval: dict[Hashable, float] = {}
        self._last_render: dict[Hashable, float] = {}
        self._last_flush = float("-inf")
        self.flushes = 0

    def stop(self) -> None:
        """Render nothing more (the view closed its widgets). Drops the render callback: it is
        usually a method of the view that owns this scheduler, and the two would stay a
        cycle that only a full collection frees."""
        self._render = _render_nothing
        self._dirty.clear()

    def mark(self, key: Hashable, *, min_interval: float | None = None) -> None:
        """``key`` changed; ``min_interval`` (seconds) limits how often it alone is rendered."""
        if min_interval is not None:
            self._min_interval[key] = min_interval
        if key not in self._dirty:
            self._dirty[key] = self._clock()

    def forget(self, key: Hashable) -> None:
        self._dirty.pop(key, None)
        self._min_interval.pop(key, None)
        self._last_render.pop(key, None)

    def last_rendered(self, key: Hashable) -> float:
        """When ``key`` was last rendered (``-inf`` if never)."""
        return self._last_render.get(key, float("-inf"))

    @property
    def pending(self) -> bool:
        return bool(self._dirty)

    def tick(self, now: float | None = None, *, force: bool = False) -> int:
        """Render what is due; returns the number of keys rendered.

        ``force`` ignores the flush interval and per-key intervals but not the budget
        unless the budget is also exhausted for good (used for a last flush).
        """
        now = self._clock() if now is None else now
        if not self._dirty:
            return 0
        if not force and now - self._last_flush < self.min_flush_interval:
            return 0
        rendered = 0
        for key in list(self._dirty):
            if not force and now - self._last_render.get(key, float("-inf")) < self._min_interval.get(key, 0.0):
                continue
            if not force and self.budget.available(now) < 1.0:
                break
            del self._dirty[key]
            sent = self._render(key)
            self.budget.spend(sent, now)
            self._last_render[key] = now
            rendered += 1
        if rendered:
            self._last_flush = now
            self.flushes += 1
        return rendered


def _render_nothing(key: Hashable) -> int:
    return 0
