"""The run's side of an interrupt: Ctrl-C in a terminal, a consumed cancellation."""

from __future__ import annotations

import asyncio
import signal
import threading
from collections.abc import Awaitable
from typing import Any, TypeVar

T = TypeVar("T")

WAKE_S = 0.1
"""How often :func:`awake` wakes the loop (Stop's lag at most)."""


class TerminalInterrupt:
    """Terminal IPython: turn Ctrl-C during a run into a cancellation of the run's task
    (a KeyboardInterrupt would tear through the event loop and skip the cleanup)."""

    def __init__(self) -> None:
        self._previous: Any = None
        self._installed = False

    def install(self, task: asyncio.Task[Any] | None) -> None:
        if task is None or threading.current_thread() is not threading.main_thread():
            return
        loop = asyncio.get_running_loop()

        def handler(signum: int, frame: Any) -> None:
            loop.call_soon_threadsafe(task.cancel)

        try:
            self._previous = signal.signal(signal.SIGINT, handler)
            self._installed = True
        except (ValueError, OSError):
            self._installed = False

    def remove(self) -> None:
        if self._installed:
            signal.signal(signal.SIGINT, self._previous)
            self._installed = False


def uncancel_current_task() -> None:
    """Forget a consumed cancellation, so later awaits in this cell are not hit by it."""
    task = asyncio.current_task()
    if task is not None and hasattr(task, "uncancel"):
        while task.cancelling():
            task.uncancel()


async def awake(awaitable: Awaitable[T]) -> T:
    """Await ``awaitable`` while waking the event loop every :data:`WAKE_S`: in a kernel, an
    interrupt during an async cell is acted on only at the loop's next wake-up, and a cell
    waiting on a quiet pipe would otherwise not see Stop at all. When this is cancelled,
    ``awaitable`` is cancelled and waited for (its cleanup runs) before the cancellation
    goes on."""
    task = asyncio.ensure_future(awaitable)
    try:
        while not task.done():
            await asyncio.wait({task}, timeout=WAKE_S)
        return task.result()
    finally:
        if not task.done():
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
