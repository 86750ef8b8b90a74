"""WebFetch's own cost next to a bare HTTP GET of the same page (no side call).

Usage: python bench/web_fetch_overhead.py [ROUNDS]
Serves pages from a local web server on 127.0.0.1 and, for each page size, times
(interleaved, after a warm-up) a bare ``httpx.AsyncClient().get`` (a fresh client, as
WebFetch makes one per fetch) against ``WebFetchTool.call`` with the cache empty and a
side call that answers at once, so the difference is WebFetch's own work: URL checks,
redirect handling, the size cap, HTML to Markdown and building the side request. Prints
the medians, the overhead in ms and as a ratio, and the HTML-to-Markdown share (which
stops once the 100,000 characters WebFetch uses exist).
"""

from __future__ import annotations

import asyncio
import gc
import statistics
import sys
import time
from types import SimpleNamespace
from typing import Any

import httpx

from nb_agent.abort import AbortController
from nb_agent.testing.web_server import LocalWebServer, Page
from nb_agent.tools.base import ToolSession, ToolUseContext
from nb_agent.tools.services import ToolServices
from nb_agent.tools.web.convert import html_to_markdown
from nb_agent.tools.web.web_fetch import MAX_CONTENT_CHARS, WebFetchTool

SIZES_KB = (5, 50, 500, 2000)


def page_html(kilobytes: int) -> str:
    row = '<tr><td>revenue</td><td>float</td><td>Net revenue in thousands of USD, <a href="/glossary#net">net</a> of refunds.</td></tr>\n'
    rows = row * max(1, kilobytes * 1024 // len(row))
    return f"<html><head><title>Data dictionary</title></head><body><h1>Columns</h1><table>{rows}</table></body></html>"


async def instant_answer(request: dict[str, Any], *, query_source: str) -> Any:
    return SimpleNamespace(content=[SimpleNamespace(type="text", text="ok")])


def context() -> ToolUseContext:
    """A fresh session each time: an empty cache, so every call fetches."""
    return ToolUseContext(abort_controller=AbortController(), session=ToolSession(), services=ToolServices(side_query=instant_answer))


async def bare_get(url: str) -> float:
    started = time.perf_counter()
    async with httpx.AsyncClient() as client:
        response = await client.get(url)
        response.raise_for_status()
        _ = response.text
    return time.perf_counter() - started


async def web_fetch(tool: WebFetchTool, url: str) -> float:
    parsed = tool.parse_input({"url": url, "prompt": "What does revenue mean?"})
    started = time.perf_counter()
    result = await tool.call(parsed, context(), lambda progress: None)
    assert not result.is_error and result.data["result"] == "ok"
    return time.perf_counter() - started


async def measure(url: str, rounds: int) -> tuple[float, float]:
    tool = WebFetchTool()
    for _ in range(3):  # warm-up: imports, connection setup paths
        await bare_get(url)
        await web_fetch(tool, url)
    bare: list[float] = []
    fetch: list[float] = []
    for _ in range(rounds):
        gc.collect()
        bare.append(await bare_get(url))
        gc.collect()
        fetch.append(await web_fetch(tool, url))
    return statistics.median(bare), statistics.median(fetch)


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 30
    routes = {f"/{kb}k": Page(body=page_html(kb)) for kb in SIZES_KB}
    print(f"WebFetch vs a bare HTTP GET of the same page, median of {rounds} interleaved rounds (127.0.0.1, no side call)")
    print(f"{'page':>7} {'bare GET':>10} {'WebFetch':>10} {'overhead':>10} {'ratio':>7} {'HTML→MD':>9}")
    with LocalWebServer(routes) as web:
        for kb in SIZES_KB:
            bare, fetch = asyncio.run(measure(web.url(f"/{kb}k"), rounds))
            html = routes[f"/{kb}k"].raw.decode()
            started = time.perf_counter()
            html_to_markdown(html, base_url=web.url(f"/{kb}k"), max_chars=MAX_CONTENT_CHARS)  # as WebFetch does
            convert = time.perf_counter() - started
            print(
                f"{kb:>5}kB {bare * 1000:>8.2f}ms {fetch * 1000:>8.2f}ms {(fetch - bare) * 1000:>8.2f}ms "
                f"{fetch / bare:>6.2f}x {convert * 1000:>7.2f}ms"
            )


if __name__ == "__main__":
    main()
