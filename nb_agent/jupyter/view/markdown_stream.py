"""Streaming Markdown to HTML without re-rendering a long answer on every update.

The text so far is cut at the last *stable* boundary: a blank line outside a fenced
code block. Everything before it is rendered once, chunk by chunk, and its HTML cached;
each update renders only the tail after it. Chunk-wise rendering can differ from a
whole-text render in corner cases (a loose list split at a blank line), so a finished
block is rendered whole once, and the static rendering always renders whole.
"""

from __future__ import annotations

import re
from typing import Any

from nb_agent.jupyter.html import Html, el, join, markdown
from nb_agent.jupyter.view import theme

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def thinking_html(source: str) -> Html:
    """Thinking as written (no Markdown): the renderer of a thinking block's stream, so it is
    paged like an answer (a chunk per paragraph, each in the thinking class's look)."""
    return el("div", source, cls=theme.THINKING_CLASS)


class MarkdownStream:
    """Accumulates streamed text; :meth:`html` returns the rendering of all of it."""

    def __init__(self, render: Any = markdown) -> None:
        self._render = render
        self._parts: list[str] = []
        self._text = ""
        self._scan_pos = 0
        """Where the boundary scan stopped (always at a line start)."""
        self._fence: str | None = None
        """The opening fence (e.g. ``````` ``` ```````) while inside a fenced block."""
        self._stable_end = 0
        """Length of the prefix whose HTML is cached."""
        self._pending_boundary = 0
        """The furthest stable boundary found so far (rendered lazily by :meth:`html`)."""
        self._stable_html: list[Html] = []
        self._stable_ends: list[int] = []
        """Where each cached chunk ends in the text."""
        self._final: str | None = None
        self._final_html: Html | None = None
        self._final_after: tuple[int, Html] | None = None
        self.renders = 0
        """How many times the Markdown renderer ran (tests check the cache with it)."""

    @property
    def text(self) -> str:
        if self._final is not None:
            return self._final
        if self._parts:
            self._text += "".join(self._parts)
            self._parts.clear()
        return self._text

    def append(self, delta: str) -> None:
        if self._final is None and delta:
            self._parts.append(delta)

    def finish(self, text: str | None = None) -> None:
        """The block is complete; ``text`` (the exact final text) replaces the streamed one."""
        streamed = self.text  # kept in ``_text``: final_after compares with it
        self._final = streamed if text is None else text
        self._final_html = self._final_after = None

    @property
    def finished(self) -> bool:
        return self._final is not None

    def _scan(self, text: str) -> None:
        """Advance over complete lines, tracking fences and stable boundaries."""
        pos = self._scan_pos
        while True:
            newline = text.find("\n", pos)
            if newline < 0:
                break
            line = text[pos:newline]
            match = _FENCE.match(line)
            if self._fence is None:
                if match:
                    self._fence = match.group(1)
                elif not line.strip():
                    if newline + 1 >= len(text):
                        break  # what follows the blank line decides; look again later
                    if not text[newline + 1].isspace():
                        # a blank line followed by an unindented line: a block boundary
                        self._pending_boundary = newline + 1
            elif match and match.group(1)[0] == self._fence[0] and len(match.group(1)) >= len(self._fence):
                self._fence = None
                if not line[match.end() :].strip():
                    self._pending_boundary_after_fence(newline + 1, text)
            pos = newline + 1
        self._scan_pos = pos

    def _pending_boundary_after_fence(self, end: int, text: str) -> None:
        # Right after a closing fence is also a safe cut (the fence is a whole block).
        if end <= len(text):
            self._pending_boundary = end

    def html(self) -> Html:
        """The HTML of the text so far (cached stable prefix + freshly rendered tail)."""
        if self._final is not None:
            final_html = self._final_html
            if final_html is None:
                final_html = self._final_html = self._render(self._final)
                self.renders += 1
            return final_html
        stable, tail = self.parts()
        return join([*stable, tail])

    def parts(self) -> tuple[list[Html], Html | None]:
        """While streaming: the cached HTML of each stable chunk so far (a list that only
        grows) and the tail's fresh rendering (None when blank)."""
        text = self.text
        self._scan(text)
        if self._pending_boundary > self._stable_end:
            chunk = text[self._stable_end : self._pending_boundary]
            self._stable_html.append(self._render(chunk))
            self._stable_ends.append(self._pending_boundary)
            self.renders += 1
            self._stable_end = self._pending_boundary
        tail = text[self._stable_end :]
        tail_html = None
        if tail.strip():
            tail_html = self._render(tail)
            self.renders += 1
        return self._stable_html, tail_html

    def chunk_end(self, count: int) -> int:
        """Where the first ``count`` stable chunks end in the streamed text."""
        return self._stable_ends[count - 1] if count else 0

    def final_after(self, start: int) -> Html | None:
        """A finished block's exact text after ``start`` (a chunk end), rendered whole; None
        when the final text does not begin with what was streamed up to there."""
        if self._final is None or self._final[:start] != self._text[:start]:
            return None
        if self._final_after is None or self._final_after[0] != start:
            rest = self._final[start:]
            self._final_after = (start, self._render(rest) if rest.strip() else join([]))
            self.renders += 1
        return self._final_after[1]

    @property
    def cached_chars(self) -> int:
        """How much of the text is covered by cached HTML."""
        return self._stable_end
