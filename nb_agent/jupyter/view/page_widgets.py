"""The nb-agent-live extension's own widgets: text the kernel appends to, and a clock the
page ticks (``labextension/src/streamWidgets.ts`` draws them).

A stock ``HTML`` widget can only be given a whole new value: a streamed answer shown with
them re-sends the page being written every second, and the status line's clock costs a
message a second. These two carry only what is new:

- :class:`StreamText` holds a block's HTML as *chunks* (the rendered stable Markdown
  chunks, see :class:`~nb_agent.jupyter.view.markdown_stream.MarkdownStream`) and a *tail*
  (the rendering of the text after the last chunk). An update is one custom message,
  ``{"seq": k, "count": n, "append": [...], "tail": ...}``: "chunks from index ``n`` on are
  these (the ones before stay), the tail is this". The tail, and a new chunk (usually the
  paragraph the tail was), may be given as an *edit of the previous tail*, ``[kept from its
  start, kept from its end, what goes between]``: a paragraph being written then costs what
  was added to it, not its whole rendering again. The result is the kernel's HTML string,
  character for character (:func:`tail_edit` checks nothing else could come out); all of it
  is made by :mod:`nb_agent.jupyter.html`, and the page renders it with JupyterLab's
  text/html renderer. ``seq`` numbers the messages: a page that sees one skipped asks again.
- :class:`PageClock` is told the run's elapsed time when it is made; the page counts on
  from there.

Their state (``chunks``, ``tail``, ``elapsed_s``) is computed when it is asked for, so a
page that loads the widgets during the run (a reload: its widget manager asks each widget's
state) or a page that lost messages (:mod:`nb_agent.jupyter.view.reshow`) gets the whole
answer so far and the clock's time now; a page that sees a message whose ``count`` is past
what it has (it missed one) asks for the state again (``{"event": "resync"}``).

Only used when every connected page announced them (``hello``'s ``widgets``, see
:attr:`nb_agent.jupyter.live.hub.LiveHub.pages_have_widgets`): elsewhere a run shows stock
widgets (:mod:`nb_agent.jupyter.view.text_pages`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from typing import Any

import ipywidgets as w
from traitlets import Unicode

from nb_agent.jupyter.html import Html, join
from nb_agent.jupyter.live.names import WIDGET_MODULE, WIDGETS_VERSION

MODULE_VERSION = f"^{WIDGETS_VERSION}.0.0"
MIN_KEPT = 40
"""An edit of the tail is sent instead of the new HTML when it keeps at least this much."""
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


def tail_edit(old: str, new: str) -> str | list[Any]:
    """``new`` as the page gets it: itself, or ``[a, b, middle]`` with
    ``old[:a] + middle + old[len(old) - b:] == new`` when that keeps at least :data:`MIN_KEPT`."""
    if _ASTRAL.search(old) or _ASTRAL.search(new):
        return new  # the page counts UTF-16 units: past U+FFFF its offsets would not be these
    start = len(os.path.commonprefix([old, new]))
    room = min(len(old), len(new)) - start
    end = 0
    while end < room and old[-1 - end] == new[-1 - end]:
        end += 1
    if start + end < MIN_KEPT:
        return new
    return [start, end, new[start : len(new) - end]]


class _PageWidget(w.DOMWidget):
    _model_module = Unicode(WIDGET_MODULE).tag(sync=True)
    _model_module_version = Unicode(MODULE_VERSION).tag(sync=True)
    _view_module = Unicode(WIDGET_MODULE).tag(sync=True)
    _view_module_version = Unicode(MODULE_VERSION).tag(sync=True)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.on_msg(self._page_message)

    def _live_state(self) -> dict[str, Any]:
        """The state computed when it is sent (not traits: a change sends nothing)."""
        return {}

    def get_state(self, key: Any = None, drop_defaults: bool = False) -> dict[str, Any]:
        state = super().get_state(key, drop_defaults=drop_defaults)
        if key is None:  # the whole state: comm_open, a page's request_state or control comm, a reshow
            state.update(self._live_state())
        return state

    def _page_message(self, _widget: Any, content: Any, _buffers: Any) -> None:
        if isinstance(content, dict) and content.get("event") == "resync":
            self.send_state()


class StreamText(_PageWidget):
    """A streamed text block: chunks of HTML that are only ever appended, and a tail."""

    _model_name = Unicode("StreamTextModel").tag(sync=True)
    _view_name = Unicode("StreamTextView").tag(sync=True)

    def __init__(self, **kwargs: Any) -> None:
        self.chunks: list[Html] = []
        self.tail: Html = join([])
        self.seq = 0
        """Messages sent (the state says how many it includes)."""
        super().__init__(**kwargs)

    def _live_state(self) -> dict[str, Any]:
        return {"chunks": list(self.chunks), "tail": str(self.tail), "seq": self.seq}

    def update(self, count: int, chunks: Sequence[Html], tail: Html) -> int:
        """Chunks from index ``count`` on become ``chunks``, the tail ``tail``: one message
        (none when nothing changes). Returns the messages sent."""
        if count == len(self.chunks) and not chunks and tail == self.tail:
            return 0
        old = str(self.tail)
        self.chunks[count:] = chunks
        self.tail = tail
        self.seq += 1
        appended = [tail_edit(old, str(chunk)) if i == 0 else str(chunk) for i, chunk in enumerate(chunks)]
        self.send({"seq": self.seq, "count": count, "append": appended, "tail": tail_edit(old, str(tail))})
        return 1

    @property
    def value(self) -> Html:
        """Everything it shows, as one HTML string (what a stock HTML widget would hold)."""
        return join([*self.chunks, self.tail])


class PageClock(_PageWidget):
    """The status line's elapsed time, counted on by the page from what it was told."""

    _model_name = Unicode("PageClockModel").tag(sync=True)
    _view_name = Unicode("PageClockView").tag(sync=True)

    def __init__(self, *, elapsed: Callable[[], float], **kwargs: Any) -> None:
        self._elapsed = elapsed
        super().__init__(**kwargs)

    def _live_state(self) -> dict[str, Any]:
        return {"elapsed_s": round(self._elapsed(), 3)}


__all__ = ["PageClock", "StreamText"]
