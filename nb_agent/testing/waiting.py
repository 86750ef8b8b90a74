"""Waiting in async tests for a state to come about, not for a number of seconds."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

HANG_S = 30.0
"""Only a hang detector: a wait ends when its condition holds, so a generous bound costs
nothing when things work and a loaded machine does not fail a working test."""


async def eventually(condition: Callable[[], bool], what: str, *, within: float = HANG_S, poll: float = 0.02) -> None:
    """Return once ``condition()`` holds; fail with ``what`` if it has not within ``within`` s."""
    deadline = time.monotonic() + within
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not so after {within:g} s")
        await asyncio.sleep(poll)


__all__ = ["HANG_S", "eventually"]
