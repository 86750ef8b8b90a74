"""A streamed answer shown as pages of HTML widgets, so its comm traffic is linear in its
length: each update re-sends the last page only.

An ipywidgets ``HTML`` widget can only be given a whole new value, and re-sending the
whole answer on every flush made a 20 KB answer cost megabytes. Here the answer's stable
Markdown chunks (see :class:`MarkdownStream`) fill a page until it would hold
:data:`PAGE_CHARS` of HTML; the flush that passes that mark gives the page its stable
chunks for good and opens a new page with the tail. A finished block renders its exact
final text after the sealed pages whole, once (the static rendering that replaces the
view when the run ends renders all of it whole).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from nb_agent.jupyter.html import Html, join
from nb_agent.jupyter.view.markdown_stream import MarkdownStream
from nb_agent.jupyter.view.throttle import WIDGET_COST

PAGE_CHARS = 2_000
"""HTML characters after which a page is sealed: an update re-sends at most about this
much (plus the tail) however long the answer grows."""
GROWTH = 2.0
"""The live page is re-sent once its text grew by this share of what it last showed (2.0:
it tripled)..."""
MAX_WAIT_S = 1.0
"""...or this long after its last update, whichever comes first: a page costs about
(1 + 1/GROWTH) times its size at a model's pace, and a slow stream still shows what is new
every second."""


class TextPages:
    """The widgets of one streamed text block: ``box`` holds the pages, the last is live."""

    def __init__(self, *, new_html: Callable[[str], Any], new_box: Callable[[list[Any]], Any], clock: Callable[[], float]) -> None:
        self._new_html = new_html
        self._clock = clock
        self._sent_at = float("-inf")
        self._shown = 0
        """The streamed text's length at the live page's last update."""
        self.behind = False
        """An update was held back (too little new since the last): render again later."""
        self.pages: list[Any] = [new_html("")]
        self.box = new_box(list(self.pages))
        self._sealed = 0
        """Stable chunks on sealed pages."""

    @property
    def live_chars(self) -> int:
        """The size of the live page's HTML (what its next update re-sends, about)."""
        return len(self.pages[-1].value)

    @property
    def widgets(self) -> list[Any]:
        return [self.box, *self.pages]

    def render(self, stream: MarkdownStream) -> int:
        """Bring the live page up to date; returns the comm messages sent."""
        live = self.pages[-1]
        if stream.finished:
            self.behind = False
            rest = stream.final_after(stream.chunk_end(self._sealed))
            if rest is None:  # the final text is not what streamed: one page, rendered whole
                return self._restart(stream.html())
            return set_value(live, rest)
        length, now = len(stream.text), self._clock()
        start = stream.chunk_end(self._sealed)
        self.behind = length - start < (self._shown - start) * (1 + GROWTH) and now - self._sent_at < MAX_WAIT_S
        if self.behind:
            return 0  # nothing rendered: the Markdown of the page is not worked out again either
        self._shown, self._sent_at = length, now
        stable, tail = stream.parts()
        fresh = stable[self._sealed :]
        if not fresh or tail is None or sum(len(part) for part in fresh) + len(tail) < PAGE_CHARS:
            return set_value(live, join([*fresh, tail]))
        sent = set_value(live, join(fresh))  # sealed: it keeps these chunks for good
        self._sealed = len(stable)
        self.pages.append(self._new_html(tail))
        self.box.children = list(self.pages)
        return sent + WIDGET_COST + 1

    def _restart(self, html: Html) -> int:
        for page in self.pages[:-1]:
            page.close()
        self.pages = self.pages[-1:]
        self._sealed = 0
        self.box.children = list(self.pages)
        return 1 + set_value(self.pages[0], html)


def set_value(widget: Any, html: str) -> int:
    """Give ``widget`` ``html``; returns the comm messages sent (none when it already had it)."""
    if widget.value == html:
        return 0
    widget.value = html
    return 1


__all__ = ["PAGE_CHARS", "TextPages", "set_value"]
