"""HTML to Markdown when only a prefix is needed: conversion stops early on a large page,
and what it gives starts exactly as the whole page's conversion does, whatever falls on
the boundaries between the pieces fed to the converter."""

from __future__ import annotations

import pytest

from nb_agent.tools.web.convert import FEED_CHARS, html_to_markdown

LIMIT = 20_000


def _rows(n: int) -> str:
    row = '<tr><td>revenue</td><td>float</td><td>Net revenue, <a href="/glossary#net">net</a> of refunds — ü€😀</td></tr>\n'
    return "<table>" + row * n + "</table>"


def _paragraphs(n: int) -> str:
    return "".join(f'<p>Paragraph {i} with <b>bold</b>, <code>x &lt; y</code> and <a href="https://ex.org/{i}">a link</a>.</p>\n' for i in range(n))


PAGES = {
    "table": f"<html><body><h1>Columns</h1>{_rows(3000)}</body></html>",
    "paragraphs": f"<html><body>{_paragraphs(4000)}</body></html>",
    "markup before the text": "<html><head>" + "<script>var a = 1;</script>\n" * 4000 + f"</head><body>{_paragraphs(2000)}</body></html>",
    "pre and lists": "<html><body>" + "<pre>line one\n  indented</pre><ul><li>a</li><li>b <i>c</i></li></ul>\n" * 3000 + "</body></html>",
    # a tag split by each piece boundary
    "tags across boundaries": "<html><body>" + "".join(
        "x" * (FEED_CHARS - 20) + '<a href="https://ex.org/very/long/path">across the boundary</a>' for _ in range(20)
    ) + "</body></html>",
}


@pytest.mark.parametrize("name", sorted(PAGES))
def test_the_prefix_is_the_same_as_the_whole_conversions_start(name):
    html = PAGES[name]
    whole = html_to_markdown(html, base_url="https://ex.org/")
    part = html_to_markdown(html, base_url="https://ex.org/", max_chars=LIMIT)
    assert len(whole) > LIMIT, "the page must be larger than the limit for this test"
    assert part[:LIMIT] == whole[:LIMIT]
    assert len(part) < len(whole)  # the rest was not converted


def test_a_page_within_the_limit_is_converted_whole():
    html = f"<html><body>{_paragraphs(300)}</body></html>"
    assert html_to_markdown(html, max_chars=10 * len(html)) == html_to_markdown(html)
