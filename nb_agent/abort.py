"""Abort signals: the run's Stop button, and child signals for sibling tool aborts.

``abort()`` may be called from any thread (widget callbacks can run on a kernel
subshell thread), so waiters are woken through ``call_soon_threadsafe``.
"""

from __future__ import annotations

import asyncio
import threading
import weakref
from collections.abc import AsyncIterator, Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class AbortSignal:
    """Read side of an :class:`AbortController`."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._reason: str | None = None
        self._callbacks: dict[int, Callable[[str], object]] = {}
        """Keyed by registration, so removing one is O(1): a run's signal collects a
        callback per turn and per tool."""
        self._next_key = 0
        self._waiters: list[tuple[asyncio.AbstractEventLoop, asyncio.Future[str]]] = []

    @property
    def aborted(self) -> bool:
        return self._reason is not None

    @property
    def reason(self) -> str | None:
        return self._reason

    @property
    def listener_count(self) -> int:
        """How many callbacks wait for the abort: what this signal keeps alive."""
        with self._lock:
            return len(self._callbacks)

    def add_callback(self, callback: Callable[[str], object]) -> Callable[[], None]:
        """Call ``callback(reason)`` on abort (at once if already aborted); returns a remover."""
        with self._lock:
            reason = self._reason
            key = self._next_key
            self._next_key += 1
            if reason is None:
                self._callbacks[key] = callback
        if reason is not None:
            callback(reason)
        # Weak: the remover is often kept by the callback's owner (a child controller), and a
        # strong reference back would tie the two into a cycle only a full collection frees.
        signal = weakref.ref(self)

        def remove() -> None:
            if (alive := signal()) is not None:
                with alive._lock:
                    alive._callbacks.pop(key, None)

        return remove

    async def wait(self) -> str:
        """Wait until aborted; returns the reason."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[str] = loop.create_future()
        with self._lock:
            if self._reason is not None:
                return self._reason
            entry = (loop, future)
            self._waiters.append(entry)
        try:
            return await future
        finally:
            with self._lock:
                if entry in self._waiters:
                    self._waiters.remove(entry)

    def _fire(self, reason: str) -> None:
        with self._lock:
            if self._reason is not None:
                return
            self._reason = reason
            callbacks, self._callbacks = list(self._callbacks.values()), {}
            waiters, self._waiters = self._waiters, []
        for loop, future in waiters:
            loop.call_soon_threadsafe(_resolve, future, reason)
        for callback in callbacks:
            callback(reason)


def _resolve(future: asyncio.Future[str], reason: str) -> None:
    if not future.done():
        future.set_result(reason)


class AbortController:
    """Owns an :class:`AbortSignal`; children abort with their parent, not vice versa."""

    def __init__(self) -> None:
        self.signal = AbortSignal()
        self._detach: Callable[[], None] | None = None

    def abort(self, reason: str = "Interrupted by user") -> None:
        self.signal._fire(reason)

    def child(self) -> AbortController:
        """A controller that aborts when this one does (e.g. the sibling-abort of a tool batch).

        Until :meth:`detach`, the parent holds the child (and whatever listens to it): detach a
        child whose work is done, or a long-lived parent (a run's, a session's) keeps every
        child it ever made.
        """
        child = AbortController()
        child._detach = self.signal.add_callback(child.abort)
        return child

    def detach(self) -> None:
        """Stop following the parent's abort (the child's work is done). Idempotent; a no-op
        for a controller that is not a child."""
        detach, self._detach = self._detach, None
        if detach is not None:
            detach()


class AbortableStream(Generic[T]):
    """Iterates an async stream; an abort ends the iteration at once, not at the next item.

    The model can be silent for seconds (before the first token, during a long pause), so
    waiting for the next event to notice the Stop button is not enough. While the consuming
    task waits for an item, an abort cancels that wait (the stream is closed by the
    cancellation, as the SDK expects) and the iteration ends normally. A cancellation that
    did not come from the abort (the kernel's own Stop) propagates unchanged.
    """

    def __init__(self, items: AsyncIterator[T], signal: AbortSignal) -> None:
        self._items = items
        self._signal = signal
        self._task = asyncio.current_task()
        self._loop = asyncio.get_running_loop()
        self._waiting = False
        self._cancelled = False
        self._remove = signal.add_callback(lambda reason: self._loop.call_soon_threadsafe(self._cancel_wait))

    def _cancel_wait(self) -> None:
        if self._waiting and not self._cancelled and self._task is not None:
            self._cancelled = True
            self._task.cancel()

    def __aiter__(self) -> AbortableStream[T]:
        return self

    async def __anext__(self) -> T:
        if self._signal.aborted:
            raise StopAsyncIteration
        self._waiting = True
        try:
            return await self._items.__anext__()
        except asyncio.CancelledError:
            if not self._cancelled:
                raise
            uncancel = getattr(self._task, "uncancel", None)  # Python >= 3.11
            if uncancel is not None:
                uncancel()
            raise StopAsyncIteration from None
        finally:
            self._waiting = False

    async def aclose(self) -> None:
        self._remove()
        close = getattr(self._items, "aclose", None)
        if close is not None:
            await close()
