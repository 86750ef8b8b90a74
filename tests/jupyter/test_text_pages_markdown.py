"""Markdown stays whole across the pages of a streamed answer: a page ends only at a
stable block boundary, so a code fence with blank lines inside, longer than a page, is one
<pre> on one page, and a list's items are never cut in half, at any pace (ipywidgets
in-process, a fake clock; the traffic side is tests/jupyter/test_text_pages.py)."""

from __future__ import annotations

import re

import pytest

from nb_agent.jupyter.view.text_pages import PAGE_CHARS

from .test_text_pages import Clock, _counting_view, _stream

CODE = "\n".join(f"total_{i} = frame['revenue'].sum() * {i}  # step {i}" + ("\n" if i % 7 == 6 else "") for i in range(80))
"""Longer than a page, with blank lines inside the fence (where a stable boundary would be outside one)."""
BULLETS = "\n".join(f"- region r{i}: revenue up {i}% over the quarter" for i in range(40))
NUMBERED = "\n".join(f"{i + 1}. check the month {i + 1} figures against the ledger" for i in range(30))
PROSE = " ".join(f"sentence{i} about the data." for i in range(70))
ANSWER = "\n\n".join([PROSE, f"```python\n{CODE}\n```", PROSE, BULLETS, PROSE, NUMBERED, PROSE, f"~~~\n{CODE}\n~~~", PROSE])


def _pages(view) -> list[str]:
    (widgets,) = [w for w in view._widgets.values() if w.pages is not None]
    return [page.value for page in widgets.pages.pages]


def _balanced(html: str, tag: str) -> bool:
    return len(re.findall(rf"<{tag}[ >]", html)) == html.count(f"</{tag}>")


@pytest.mark.parametrize("chars_per_s", [400, 2_000, 20_000])
def test_fences_and_lists_are_never_cut_by_a_page(chars_per_s: float):
    assert len(CODE) > PAGE_CHARS
    clock = Clock()
    state, view, _sent = _counting_view(clock)
    seen: list[list[str]] = []
    original_tick = view.tick

    def tick() -> int:  # every state of the pages the view ever showed
        sent = original_tick()
        if sent:
            seen.append(_pages(view))
        return sent

    view.tick = tick  # type: ignore[method-assign]
    _stream(state, view, clock, ANSWER, chars_per_s=chars_per_s)
    pages = _pages(view)
    assert len(pages) > 3
    for shown in [*seen, pages]:
        for page in shown[:-1]:  # a sealed page (the live one may end inside a block being written)
            for tag in ("pre", "code", "ul", "ol", "li", "p"):
                assert _balanced(page, tag), (tag, page[-300:])
    whole = "".join(pages)
    assert "```" not in whole and "~~~" not in whole
    assert len(re.findall(r"<pre>", whole)) == 2  # each fence one block, however many pages it spans
    for block in re.findall(r"<pre>(.*?)</pre>", whole, re.S):
        assert block.count("total_") == 80 and block.count("\n\n") == 80 // 7  # blank lines kept inside
    assert len(re.findall(r"<li>", whole)) == 70
    assert re.findall(r"region r(\d+)", whole) == [str(i) for i in range(40)]
    assert re.findall(r"check the month (\d+)", whole) == [str(i + 1) for i in range(30)]
