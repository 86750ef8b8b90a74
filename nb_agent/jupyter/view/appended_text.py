"""A streamed answer shown by one :class:`~nb_agent.jupyter.view.page_widgets.StreamText`:
each update sends the stable Markdown chunks that are new and the tail, nothing else.

What an update costs beyond the new text is a message's envelope and what it sends again
of the tail (the rendering of the paragraph being written, which changes as it grows: sent
as an edit of the previous tail when it can be, whole when it cannot). An update is
therefore sent once the text that came since the last one is at least
:data:`ENVELOPE_BYTES` plus the tail last sent (what a whole tail costs): what is sent again
never outweighs what is new, so a block costs at most about twice its HTML however fast it
streams, and about its HTML plus the envelopes when the tail goes as edits. A slow stream
still shows what is new every :data:`MAX_WAIT_S`. A finished block's exact final text after
the chunks already sent replaces the tail, rendered whole, once.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from nb_agent.jupyter.html import join
from nb_agent.jupyter.view.markdown_stream import MarkdownStream

ENVELOPE_BYTES = 150
"""About what a widget's custom message carries besides its value (comm id, method, keys)."""
MAX_WAIT_S = 1.0
"""A stream slower than the rule above still shows what is new this often."""


class AppendedText:
    """The widget of one streamed text block on a page that can append."""

    def __init__(self, *, widget: Any, clock: Callable[[], float]) -> None:
        self.widget = widget
        self._clock = clock
        self._sent_at = float("-inf")
        self._shown = 0
        """The streamed text's length at the last update."""
        self._cost = 0
        """What the last update sent besides new text (envelope and tail), in characters."""
        self.behind = False
        """An update was held back (too little new since the last): render again later."""

    @property
    def box(self) -> Any:
        return self.widget

    @property
    def widgets(self) -> list[Any]:
        return [self.widget]

    def render(self, stream: MarkdownStream) -> int:
        """Bring the widget up to date when due; returns the comm messages sent."""
        widget = self.widget
        if stream.finished:
            self.behind = False
            sent = len(widget.chunks)
            rest = stream.final_after(stream.chunk_end(sent))
            if rest is None:  # the final text is not what streamed: all of it again, whole
                return widget.update(0, [stream.html()], join([]))
            return widget.update(sent, [], rest)
        length, now = len(stream.text), self._clock()
        self.behind = length - self._shown < self._cost and now - self._sent_at < MAX_WAIT_S
        if self.behind or length == self._shown:
            return 0  # nothing rendered: the Markdown of the tail is not worked out again either
        stable, tail = stream.parts()
        tail_html = tail if tail is not None else join([])
        count = len(widget.chunks)
        self._shown, self._sent_at = length, now
        self._cost = ENVELOPE_BYTES + len(tail_html)
        return widget.update(count, stable[count:], tail_html)


__all__ = ["AppendedText"]
