"""What a piece of code leaves in reference cycles: objects only a full collection frees.

A long session's cyclic garbage outlives its turns until the interpreter's rare
generation-2 collection, and while it waits it raises the heap's peak (issue 24). A test
runs the code inside :func:`cycles_left_behind` and reads, by type, what such a
collection found: a count, not a timing, so the test is deterministic::

    with cycles_left_behind() as left:
        await run_the_turns()  # inside a function: its locals are gone when it returns
    assert left.of_package("nb_agent") == []
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field


@dataclass(kw_only=True)
class CyclicGarbage:
    """The qualified type names of what the block left unreachable but not freed."""

    types: list[str] = field(default_factory=list)

    def of_package(self, package: str) -> list[str]:
        """The names of the types that ``package`` defines, sorted."""
        return sorted(t for t in self.types if t == package or t.startswith(package + "."))


@contextmanager
def cycles_left_behind() -> Iterator[CyclicGarbage]:
    """Pause the cyclic collector over the block; on the way out, note what a full collection
    finds (every object it would free: those in cycles and those only they hold), free it,
    and restore the collector as it was."""
    found = CyclicGarbage()
    was_enabled, flags = gc.isenabled(), gc.get_debug()
    gc.collect()  # garbage from before the block is not the block's
    gc.disable()
    try:
        yield found
    finally:
        gc.set_debug(flags | gc.DEBUG_SAVEALL)
        try:
            gc.collect()
            found.types += [f"{type(o).__module__}.{type(o).__qualname__}" for o in gc.garbage]
            gc.garbage.clear()
        finally:
            gc.set_debug(flags)
        gc.collect()  # without SAVEALL: now they are freed
        if was_enabled:
            gc.enable()


__all__ = ["CyclicGarbage", "cycles_left_behind"]
