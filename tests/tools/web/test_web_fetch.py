"""WebFetch against local HTTP servers: content kinds, redirects, errors, size, time, abort,
cache, and the side call that answers the prompt."""

from __future__ import annotations

import asyncio
import base64
import time

import pytest

from nb_agent.agent import create_engine
from nb_agent.messages import normalize_for_api
from nb_agent.model.model_ids import DEFAULT_HAIKU_MODEL as SMALL_FAST_MODEL
from nb_agent.testing import Reply, ScriptedTransport, text, tool_use
from nb_agent.testing.collect import assert_history_invariant, assert_tool_result_invariant, collect
from nb_agent.tools.web.web_fetch import WebFetchTool

from .conftest import PDF

ALLOW = ["WebFetch(domain:127.0.0.1)"]


def _engine(tmp_path, turns, *, tool=None, allow=ALLOW, can_use_tool=None):
    tools = [tool or WebFetchTool(timeout_s=2.0, max_body_bytes=1024 * 1024)]
    transport = ScriptedTransport(turns)
    engine, _ = create_engine(
        cwd=tmp_path, home=tmp_path, transport=transport, mcp=False, tools=tools, allow=allow, can_use_tool=can_use_tool,
    )  # fmt: skip
    return engine, transport


def _fetch_turns(url, answer="the answer", prompt="What does revenue mean?"):
    return [
        Reply(content=[tool_use("WebFetch", {"url": url, "prompt": prompt})]),
        Reply(content=[text(answer)], model=SMALL_FAST_MODEL),  # the side call
        Reply(content=[text("done")]),
    ]


async def _fetch(tmp_path, url, **kw):
    engine, transport = _engine(tmp_path, _fetch_turns(url), **kw)
    collected = await collect(engine, "read it")
    [result] = collected.tool_results
    assert_history_invariant(engine.messages)
    return result, transport, engine


def _side_text(request) -> str:
    content = request["messages"][0]["content"]
    return content if isinstance(content, str) else "\n".join(b.get("text", "") for b in content)


async def test_html_becomes_markdown_and_the_small_model_answers(tmp_path, web):
    result, transport, engine = await _fetch(tmp_path, web.url("/dictionary"))
    assert result["content"] == "the answer" and not result.get("is_error")
    side = transport.requests[1]
    assert side["model"] == SMALL_FAST_MODEL and "tools" not in side
    page = _side_text(side)
    assert "# Sales data dictionary" in page and "**revenue** : net revenue in EUR" in page
    assert f"[sales.csv]({web.url('/files/sales.csv')})" in page  # links kept, made absolute
    assert "tracking" not in page and "<ul>" not in page
    assert "What does revenue mean?" in page
    assert SMALL_FAST_MODEL in engine.usage.by_model  # the side call's usage is counted


@pytest.mark.parametrize(("path", "expected"), [("/notes.txt", "revenue is net of refunds"), ("/schema.json", '{"revenue": "EUR"}')])
async def test_text_and_json_are_given_as_they_are(tmp_path, web, path, expected):
    result, transport, _ = await _fetch(tmp_path, web.url(path))
    assert not result.get("is_error")
    assert expected in _side_text(transport.requests[1])


async def test_a_pdf_goes_to_the_side_call_as_a_document(tmp_path, web):
    result, transport, _ = await _fetch(tmp_path, web.url("/spec.pdf"))
    assert not result.get("is_error")
    document = transport.requests[1]["messages"][0]["content"][0]
    assert document["type"] == "document" and base64.b64decode(document["source"]["data"]) == PDF


async def test_a_same_host_redirect_is_followed(tmp_path, web):
    result, transport, _ = await _fetch(tmp_path, web.url("/old"))
    assert not result.get("is_error") and "Sales data dictionary" in _side_text(transport.requests[1])
    assert [r["path"] for r in web.requests] == ["/old", "/dictionary"]


async def test_a_redirect_to_another_host_is_reported_not_followed(tmp_path, web):
    turns = [Reply(content=[tool_use("WebFetch", {"url": web.url("/elsewhere"), "prompt": "p"})]), Reply(content=[text("ok")])]
    engine, transport = _engine(tmp_path, turns)
    [result] = (await collect(engine, "x")).tool_results
    assert "REDIRECT DETECTED" in result["content"] and web.url("/dictionary", host="localhost") in result["content"]
    assert [r["path"] for r in web.requests] == ["/elsewhere"]  # nothing fetched from the other host
    assert len(transport.requests) == 2  # no side call


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("/gone", "status code 404"),
        ("/huge", "too large"),
        ("/image.png", "image/png, which WebFetch cannot read"),
        ("/loop", "Too many redirects"),
    ],
)
async def test_errors_are_results_the_model_reads(tmp_path, web, path, message):
    turns = [Reply(content=[tool_use("WebFetch", {"url": web.url(path), "prompt": "p"})]), Reply(content=[text("ok")])]
    engine, transport = _engine(tmp_path, turns)
    [result] = (await collect(engine, "x")).tool_results
    assert result["is_error"] and message in result["content"], result
    assert len(transport.requests) == 2  # no side call for a failed fetch


async def test_a_slow_page_times_out(tmp_path, web):
    turns = [Reply(content=[tool_use("WebFetch", {"url": web.url("/slow"), "prompt": "p"})]), Reply(content=[text("ok")])]
    engine, _ = _engine(tmp_path, turns, tool=WebFetchTool(timeout_s=0.5))
    started = time.monotonic()
    [result] = (await collect(engine, "x")).tool_results
    assert result["is_error"] and "timed out after 0.5s" in result["content"]
    # Generous: only separates "waited for the page's 100 s delay" from "did not" (shared machines).
    assert time.monotonic() - started < 20


async def test_stop_during_a_slow_fetch_ends_it_at_once(tmp_path, web):
    turns = [Reply(content=[tool_use("WebFetch", {"url": web.url("/slow"), "prompt": "p"})])]
    engine, _ = _engine(tmp_path, turns, tool=WebFetchTool(timeout_s=60))

    async def stop_soon():
        while not web.requests:
            await asyncio.sleep(0.01)
        engine.interrupt()

    stopper = asyncio.ensure_future(stop_soon())
    # Generous: only separates "waited for the page's 100 s delay / the 60 s fetch timeout" from
    # "did not" (shared machines); bench/hook_stop.py measures the Stop target.
    collected = await asyncio.wait_for(collect(engine, "x"), timeout=20)
    await stopper
    assert collected.result.subtype == "interrupted"
    assert_tool_result_invariant(normalize_for_api(engine.messages))
    [result] = collected.tool_results
    assert result["is_error"]


async def test_the_page_is_cached_for_fifteen_minutes(tmp_path, web):
    url = web.url("/dictionary")
    turns = [
        Reply(content=[tool_use("WebFetch", {"url": url, "prompt": "a"})]),
        Reply(content=[text("first")], model=SMALL_FAST_MODEL),
        Reply(content=[tool_use("WebFetch", {"url": url, "prompt": "b"})]),
        Reply(content=[text("second")], model=SMALL_FAST_MODEL),
        Reply(content=[text("done")]),
    ]
    engine, transport = _engine(tmp_path, turns)
    results = (await collect(engine, "x")).tool_results
    assert [r["content"] for r in results] == ["first", "second"]
    assert [r["path"] for r in web.requests] == ["/dictionary"]
    assert "b" in _side_text(transport.requests[3]).splitlines()


@pytest.mark.parametrize(
    "url",
    ["ftp://127.0.0.1/x", "file:///etc/passwd", "http://user:pw@127.0.0.1/", "http:///nohost", "not a url", "http://" + "a" * 2100],
)
async def test_bad_urls_are_refused_before_any_request(tmp_path, web, url):
    turns = [Reply(content=[tool_use("WebFetch", {"url": url, "prompt": "p"})]), Reply(content=[text("ok")])]
    engine, _ = _engine(tmp_path, turns, allow=["WebFetch"])
    [result] = (await collect(engine, "x")).tool_results
    assert result["is_error"]
    assert web.requests == []


async def test_without_a_rule_it_asks_and_a_denial_fetches_nothing(tmp_path, web):
    from nb_agent.permissions.types import PermissionDeny

    asked = []

    async def deny(tool, request, ctx):
        asked.append(request)
        return PermissionDeny(message="not that site")

    turns = [Reply(content=[tool_use("WebFetch", {"url": web.url("/dictionary"), "prompt": "p"})]), Reply(content=[text("ok")])]
    engine, _ = _engine(tmp_path, turns, allow=[], can_use_tool=deny)
    [result] = (await collect(engine, "x")).tool_results
    assert result["is_error"] and [r.suggested_rule for r in asked] == ["WebFetch(domain:127.0.0.1)"]
    assert web.requests == []


def test_flags():
    tool = WebFetchTool()
    parsed = tool.parse_input({"url": "https://example.com", "prompt": "p"})
    assert tool.is_read_only(parsed) and tool.is_concurrency_safe(parsed) and tool.max_result_size_chars == 100_000
    assert tool.input_json_schema()["required"] == ["url", "prompt"]
