"""The web tools follow the session's provider (``%agent provider`` sets it on the engine's
config), not only the environment's: WebSearch is offered or refused by it, and the side
calls send their model in its id form."""

from __future__ import annotations

import pytest

from nb_agent.agent import create_engine
from nb_agent.engine import EngineConfig
from nb_agent.model.providers import Provider
from nb_agent.testing import Reply, ScriptedTransport, text, tool_use
from nb_agent.testing.collect import collect
from nb_agent.tools.web import WebFetchTool, WebSearchTool

from .test_web_search import search_reply

PROVIDER_ENVS = ("CLAUDE_CODE_USE_BEDROCK", "CLAUDE_CODE_USE_VERTEX", "CLAUDE_CODE_USE_FOUNDRY", "NB_AGENT_PROVIDER", "NB_AGENT_WEB_SEARCH")


@pytest.fixture(autouse=True)
def first_party_environment(monkeypatch):
    for name in PROVIDER_ENVS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ANTHROPIC_VERTEX_PROJECT_ID", "demo-project")  # Vertex needs one to be configured


def _engine(tmp_path, turns, provider=None, tools=None, model="claude-sonnet-4-6"):
    config = EngineConfig(cwd=tmp_path, model=model, provider=provider)
    engine, _ = create_engine(
        config=config, home=tmp_path, transport=ScriptedTransport(turns), mcp=False,
        tools=tools or [WebSearchTool()], allow=["WebSearch", "WebFetch(domain:127.0.0.1)"],
    )  # fmt: skip
    return engine


def _offered(engine, request=0):
    return [t["name"] for t in engine.transport.requests[request].get("tools", [])]


async def test_a_session_on_bedrock_is_not_offered_web_search_and_says_why(tmp_path):
    engine = _engine(tmp_path, [Reply(content=[text("ok")])], provider=Provider.BEDROCK)
    await collect(engine, "x")
    assert "WebSearch" not in _offered(engine)
    [tool] = [t for t in engine.tool_pool.builtins if t.name == "WebSearch"]
    assert "Bedrock" in tool.unavailable_reason()


async def test_switching_the_provider_takes_web_search_away_at_the_next_submission(tmp_path):
    engine = _engine(tmp_path, [Reply(content=[text("one")]), Reply(content=[text("two")])])
    await collect(engine, "x")
    assert "WebSearch" in _offered(engine, 0)
    engine.config.provider = Provider.BEDROCK  # what %agent provider bedrock does
    await collect(engine, "y")
    assert "WebSearch" not in _offered(engine, 1)


@pytest.mark.parametrize(
    ("provider", "model", "sent"),
    [(Provider.VERTEX, "claude-sonnet-4-5", "claude-sonnet-4-5@20250929"), (None, "sonnet", "claude-sonnet-4-6")],
)
async def test_the_search_side_call_sends_the_model_as_the_conversation_does(tmp_path, provider, model, sent):
    turns = [Reply(content=[tool_use("WebSearch", {"query": "pandas 3.0"})]), search_reply(), Reply(content=[text("ok")])]
    engine = _engine(tmp_path, turns, provider=provider, model=model)
    [result] = (await collect(engine, "search")).tool_results
    assert not result.get("is_error"), result
    assert engine.transport.requests[0]["model"] == engine.transport.requests[1]["model"] == sent


async def test_on_vertex_web_fetch_asks_haiku_in_vertex_form(tmp_path, web):
    turns = [
        Reply(content=[tool_use("WebFetch", {"url": web.url("/notes.txt"), "prompt": "what is revenue?"})]),
        Reply(content=[text("net of refunds")]),
        Reply(content=[text("ok")]),
    ]
    engine = _engine(tmp_path, turns, provider=Provider.VERTEX, tools=[WebFetchTool(timeout_s=5.0)])
    [result] = (await collect(engine, "read")).tool_results
    assert not result.get("is_error"), result
    assert engine.transport.requests[1]["model"] == "claude-haiku-4-5@20251001"
