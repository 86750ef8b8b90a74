"""A text box on a card (deny feedback, Keep planning, a question's "Other") whose value is
read once the page has sent all of it, and whose Enter submits.

The page sends a text box's value as the user types, one update at a time (the next leaves
when the kernel has answered the previous one: :mod:`nb_agent.jupyter.comm_status` makes sure
it does while a run is busy). A button's click is a separate message that does not wait for
them, so a click right after the last keystrokes can overtake the update that carries them.
:meth:`TypedText.settled` therefore waits, when the value changed very recently, until it has
stopped changing: an update still in the page arrives within one round trip.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

SETTLE_S = 0.3
"""How long the value must be unchanged, after a recent change, before it is read."""
MAX_WAIT_S = 3.0
"""The longest a click waits for the text to settle (a user still typing, say)."""


class TypedText:
    """An ipywidgets ``Text`` that tracks when its value last changed."""

    def __init__(self, *, placeholder: str, shared: dict[str, Any], clock: Callable[[], float] = time.monotonic) -> None:
        import ipywidgets as w

        self._clock = clock
        self._changed_at = float("-inf")
        self._on_submit: list[Callable[[], None]] = []
        self.widget = w.Text(placeholder=placeholder, layout=shared["layout"], style=shared["text_style"], continuous_update=True)
        self.widget.observe(self._changed, names="value")
        self.widget.on_msg(self._message)

    @property
    def value(self) -> str:
        return self.widget.value or ""

    def _changed(self, _change: Any) -> None:
        self._changed_at = self._clock()

    def _message(self, _widget: Any, content: Any, _buffers: Any) -> None:
        if isinstance(content, dict) and content.get("event") == "submit":  # Enter in the box
            for callback in self._on_submit:
                callback()

    def on_submit(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` (on whatever thread the message arrives) when Enter is pressed."""
        self._on_submit.append(callback)

    async def settled(self) -> str:
        """The value, once it has not changed for :data:`SETTLE_S` (at most :data:`MAX_WAIT_S`)."""
        deadline = self._clock() + MAX_WAIT_S
        while (quiet := self._clock() - self._changed_at) < SETTLE_S and self._clock() < deadline:
            await asyncio.sleep(SETTLE_S - quiet)
        return self.value
