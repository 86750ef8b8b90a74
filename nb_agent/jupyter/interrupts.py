"""The run's side of an interrupt: Ctrl-C in a terminal, a consumed cancellation."""

from __future__ import annotations

import asyncio
import signal
import threading
from typing import Any


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
