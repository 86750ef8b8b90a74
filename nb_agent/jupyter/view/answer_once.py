"""A form answered at most once, whichever thread the click arrives on (JupyterLab may
deliver comm messages on a kernel subshell): the first claim wins, later clicks and the
view's own ``disable`` find it taken."""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import Any


class AnswerOnce:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.answered = False

    def claim(self) -> bool:
        """True for the first caller only."""
        with self.lock:
            if self.answered:
                return False
            self.answered = True
            return True


def disable_all(latch: AnswerOnce, controls: Iterable[Any]) -> int:
    """Close the form to clicks and grey out its controls; returns the comm messages sent."""
    latch.claim()
    sent = 0
    for widget in controls:
        if not widget.disabled:
            widget.disabled = True
            sent += 1
    return sent
