"""Building many long-lived objects without the cyclic collector (a resumed conversation,
the first run's imports). Only the standard library: the warm-up imports it first thing."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """Build tens of thousands of long-lived objects (a resumed conversation, imports) without the
    cyclic collector: they would set it off again and again, each time walking the young
    objects and, every few times, the kernel's whole heap; none of them form cycles.

    On the way out they go straight to the oldest generation (``gc.freeze`` then
    ``gc.unfreeze`` moves every tracked object there without walking any), so no young
    collection walks them once more either. Skipped when the collector is already paused
    (nested, or by the user) or someone froze objects (unfreezing would release theirs).
    """
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        if gc.get_freeze_count() == 0:
            gc.freeze()
            gc.unfreeze()
        gc.enable()
