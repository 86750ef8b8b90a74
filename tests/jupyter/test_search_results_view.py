"""WebSearch's card shows the results as links, live and in every static form; text from
the web is escaped, and only http(s) results become links (a ``javascript:`` or ``data:``
URL in a result is shown as text, never as something to click)."""

from __future__ import annotations

import pytest

from nb_agent.jupyter.static_render import static_bundle
from nb_agent.jupyter.view.run_state import RunState, ToolCall
from nb_agent.jupyter.view.tool_card import card_html

GOOD = [
    {"title": "Pandas 3.0 release notes", "url": "https://pandas.example.org/whatsnew/v3.0"},
    {"title": "Copy-on-write (CoW) [guide]", "url": "https://docs.example.org/cow_(guide) page"},
]
BAD_URLS = ["javascript:alert(1)", "JaVaScRiPt:alert(1)", " javascript:alert(1)", "data:text/html,<script>alert(1)</script>", "vbscript:x", "//evil.example/x"]


def _card(links):
    return ToolCall(
        tool_use_id="toolu_s", name="WebSearch", input={"query": "pandas 3.0"}, input_complete=True,
        status="done", structured={"query": "pandas 3.0", "links": links},
    )  # fmt: skip


def _state(links):
    state = RunState()
    state._add(_card(links))
    return state


def test_results_are_links_live_and_static():
    live = card_html(_card(GOOD))
    bundle = static_bundle(_state(GOOD))
    for html in (live, bundle["text/html"]):
        assert '<a href="https://pandas.example.org/whatsnew/v3.0"' in html and ">Pandas 3.0 release notes</a>" in html
    markdown = bundle["text/markdown"]
    assert "[Pandas 3.0 release notes](https://pandas.example.org/whatsnew/v3.0)" in markdown
    # brackets in a title and parentheses/spaces in a URL cannot end the link early
    assert r"[Copy-on-write (CoW) \[guide\]](https://docs.example.org/cow_%28guide%29%20page)" in markdown
    assert "https://pandas.example.org/whatsnew/v3.0" in bundle["text/plain"]


@pytest.mark.parametrize("url", BAD_URLS)
def test_a_result_that_is_not_http_is_text_not_a_link(url):
    links = [{"title": "<b>click</b> me", "url": url}]
    live = card_html(_card(links))
    bundle = static_bundle(_state(links))
    for html in (live, bundle["text/html"]):
        assert "<b>click</b>" not in html and "&lt;b&gt;click&lt;/b&gt; me" in html
        assert "<a " not in html and "<script>" not in html
    assert f"]({url.strip()}" not in bundle["text/markdown"]
