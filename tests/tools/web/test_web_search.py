"""WebSearch: the search runs as the Messages API's server tool in a side call; its blocks
and citations are kept through the structured result, the transcript and resume; the
model reads links; providers without the server tool do not get the tool."""

from __future__ import annotations

import json

import pytest

from nb_agent.agent import create_engine
from nb_agent.engine import EngineConfig, QueryEngine
from nb_agent.testing import (
    Reply,
    ScriptedTransport,
    cited_text,
    server_tool_use,
    text,
    tool_use,
    web_search_tool_result,
)
from nb_agent.testing.collect import collect
from nb_agent.tools.web.web_search import SERVER_TOOL_TYPE, WebSearchTool

RESULTS = [("Pandas 3.0 release notes", "https://pandas.example.org/whatsnew/v3.0"), ("Copy-on-write", "https://docs.example.org/cow")]


def search_reply(query="pandas 3.0 release"):
    use = server_tool_use(query)
    return Reply(
        content=[
            use,
            web_search_tool_result(use["id"], RESULTS),
            cited_text("pandas 3.0 makes copy-on-write the default.", [(RESULTS[1][1], RESULTS[1][0], "copy-on-write is the default")]),
        ]
    )


def _engine(tmp_path, turns, **kw):
    engine, _ = create_engine(
        cwd=tmp_path, home=tmp_path, transport=ScriptedTransport(turns), mcp=False, tools=[WebSearchTool()], allow=["WebSearch"], **kw
    )
    return engine


async def test_the_search_is_a_server_tool_side_call_and_the_model_reads_links(tmp_path):
    query = {"query": "pandas 3.0 release", "allowed_domains": ["pandas.example.org", "docs.example.org"]}
    turns = [Reply(content=[tool_use("WebSearch", query)]), search_reply(), Reply(content=[text("answer with sources")])]
    engine = _engine(tmp_path, turns)
    collected = await collect(engine, "what changed in pandas 3?")
    [result] = collected.tool_results
    side = engine.transport.requests[1]
    assert side["tools"] == [{"type": SERVER_TOOL_TYPE, "name": "web_search", "max_uses": 8, "allowed_domains": query["allowed_domains"]}]
    assert side["model"] == engine.config.model
    content = result["content"]
    assert content.startswith('Web search results for query: "pandas 3.0 release"')
    links = json.loads(content.split("Links: ", 1)[1].split("\n", 1)[0])
    assert links == [{"title": t, "url": u} for t, u in RESULTS]
    assert "copy-on-write the default. [sources: https://docs.example.org/cow]" in content
    assert "You MUST include the sources" in content


async def test_blocks_and_citations_survive_the_transcript_and_resume(tmp_path):
    turns = [Reply(content=[tool_use("WebSearch", {"query": "pandas 3.0 release"})]), search_reply(), Reply(content=[text("ok")])]
    engine = _engine(tmp_path, turns)
    await collect(engine, "search")
    engine.close()
    resumed, warnings = QueryEngine.resume(engine.transcript_path, config=EngineConfig(cwd=tmp_path))
    assert warnings == []
    [message] = [m for m in resumed.messages if m.type == "user" and m.tool_use_result]
    blocks = message.tool_use_result["results"]
    assert [b["type"] for b in blocks] == ["server_tool_use", "web_search_tool_result", "text"]
    assert blocks[1]["content"][0]["url"] == RESULTS[0][1] and blocks[1]["content"][0]["encrypted_content"] == "enc-0"
    assert blocks[2]["citations"][0]["cited_text"] == "copy-on-write is the default"


async def test_a_search_error_is_reported(tmp_path):
    use = server_tool_use("x")
    failed = Reply(content=[use, {"type": "web_search_tool_result", "tool_use_id": use["id"],
                                  "content": {"type": "web_search_tool_result_error", "error_code": "max_uses_exceeded"}}])  # fmt: skip
    turns = [Reply(content=[tool_use("WebSearch", {"query": "xx"})]), failed, Reply(content=[text("ok")])]
    [result] = (await collect(_engine(tmp_path, turns), "x")).tool_results
    assert result["is_error"] and "max_uses_exceeded" in result["content"]


@pytest.mark.parametrize(
    ("env", "reason"),
    [(("CLAUDE_CODE_USE_BEDROCK", "1"), "Bedrock"), (("NB_AGENT_PROVIDER", "bedrock"), "Bedrock"), (("NB_AGENT_WEB_SEARCH", "off"), "NB_AGENT_WEB_SEARCH")],
)
async def test_providers_without_the_server_tool_do_not_get_it(tmp_path, monkeypatch, env, reason):
    monkeypatch.setenv(*env)
    tool = WebSearchTool()
    assert not tool.is_enabled() and reason in tool.unavailable_reason()
    engine = _engine(tmp_path, [Reply(content=[text("ok")])])
    await collect(engine, "x")
    assert all(t["name"] != "WebSearch" for t in engine.transport.requests[0].get("tools", []))


def test_both_filters_at_once_are_refused():
    with pytest.raises(ValueError):
        WebSearchTool().parse_input({"query": "xx", "allowed_domains": ["a.com"], "blocked_domains": ["b.com"]})


def test_vertex_offers_it_only_for_claude_4_models(monkeypatch):
    monkeypatch.setenv("CLAUDE_CODE_USE_VERTEX", "1")
    from nb_agent.tools.web.model_choice import web_search_unavailable_reason

    assert web_search_unavailable_reason("claude-sonnet-4-6") is None
    assert "Vertex" in web_search_unavailable_reason("claude-3-5-sonnet")
