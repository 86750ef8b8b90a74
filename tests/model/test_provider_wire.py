"""Each provider's SDK client, chosen by Claude Code's variables, against the fake server
speaking that provider's wire format over real HTTP: Bedrock (AWS event-stream framing,
SigV4 or bearer token), Vertex (``:streamRawPredict`` SSE), Foundry (its resource prefix).
Retries, prompt caching and pricing behave as on Anthropic's API."""

from __future__ import annotations

from pathlib import Path

import pytest

from nb_agent.engine import EngineConfig, EngineOptions, QueryEngine
from nb_agent.model.providers import Provider
from nb_agent.model.retry import RetryPolicy
from nb_agent.testing import ErrorReply, FakeAnthropicServer, Reply, text, tool_use
from nb_agent.testing.collect import collect
from nb_agent.testing.provider_wire import bedrock_chunk, event_stream_frame
from nb_agent.testing.tools import RecordingTool

pytest.importorskip("botocore")

FAST_RETRIES = RetryPolicy(base_delay_s=0.01, max_delay_s=0.02)
LONG_PROMPT = "Please look at this. " + "context " * 1500


def _turns() -> list:
    return [Reply(content=[text("checking"), tool_use("Echo", {"value": "a"}, id="t1")]), Reply(content=[text("done")])]


def _engine(tmp_path: Path) -> QueryEngine:
    config = EngineConfig(cwd=tmp_path, model="sonnet", options=EngineOptions(retry_policy=FAST_RETRIES))
    return QueryEngine(config=config, tools=[RecordingTool("Echo")])


async def _run(engine: QueryEngine, prompt: str = "hi"):
    out = await collect(engine, prompt)
    assert out.result.subtype == "success", out.result
    return out


def _bedrock_env(monkeypatch, server: FakeAnthropicServer) -> None:
    monkeypatch.setenv("CLAUDE_CODE_USE_BEDROCK", "1")
    monkeypatch.setenv("AWS_REGION", "eu-west-1")
    monkeypatch.setenv("ANTHROPIC_BEDROCK_BASE_URL", server.base_url)
    monkeypatch.setenv("AWS_CONFIG_FILE", "/nonexistent")  # no developer profile can leak in
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent")


async def test_bedrock_with_aws_keys_streams_event_stream_frames(tmp_path, monkeypatch):
    async with FakeAnthropicServer([*_turns(), Reply(content=[text("again")])], prompt_cache=True) as server:
        _bedrock_env(monkeypatch, server)
        monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIDFAKEFAKEFAKE")
        monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "fake-secret")
        engine = _engine(tmp_path)
        out = await _run(engine, LONG_PROMPT)
        await _run(engine, "and again")
    assert server.request_wires == ["bedrock"] * 3
    assert [r["model"] for r in server.requests] == ["eu.anthropic.claude-sonnet-4-6"] * 3
    assert all(h["authorization"].startswith("AWS4-HMAC-SHA256 Credential=AKIDFAKEFAKEFAKE/") for h in server.request_headers)
    assert out.result.text == "done" and out.of_type("user")[-1].tool_result_ids == ["t1"]
    usage = engine.usage.total
    assert usage.cache_read_input_tokens > 0, "caching works the same on Bedrock"
    assert engine.usage.cost_usd == pytest.approx(usage.cost_usd("eu.anthropic.claude-sonnet-4-6", Provider.BEDROCK))
    assert engine.usage.cost_usd == pytest.approx(1.1 * usage.cost_usd("claude-sonnet-4-6", Provider.FIRST_PARTY))


async def test_bedrock_bearer_token_and_retries_after_overload_and_a_broken_stream(tmp_path, monkeypatch):
    overloaded = ErrorReply(status=529, error_type="overloaded_error")
    broken = Reply(content=[text("partial answer that breaks")], error_after_events=3, chunk_size=4)
    async with FakeAnthropicServer([overloaded, broken, Reply(content=[text("recovered")])]) as server:
        _bedrock_env(monkeypatch, server)
        monkeypatch.setenv("AWS_BEARER_TOKEN_BEDROCK", "fake-bedrock-token")
        out = await _run(_engine(tmp_path))
    assert out.result.text == "recovered"
    assert len(server.requests) == 3 and [e.subtype for e in out.of_type("system")].count("api_retry") == 2
    assert server.request_headers[0]["authorization"] == "Bearer fake-bedrock-token"


async def test_vertex_stream_raw_predict(tmp_path, monkeypatch):
    async with FakeAnthropicServer(_turns()) as server:
        monkeypatch.setenv("CLAUDE_CODE_USE_VERTEX", "1")
        monkeypatch.setenv("CLOUD_ML_REGION", "us-east5")
        monkeypatch.setenv("ANTHROPIC_VERTEX_PROJECT_ID", "fake-project")
        monkeypatch.setenv("ANTHROPIC_VERTEX_BASE_URL", f"{server.base_url}/v1")
        monkeypatch.setenv("CLAUDE_CODE_SKIP_VERTEX_AUTH", "1")
        engine = _engine(tmp_path)
        out = await _run(engine)
    assert server.request_wires == ["vertex", "vertex"]
    assert [r["model"] for r in server.requests] == ["claude-sonnet-4-6"] * 2
    assert all("anthropic_version" in r for r in server.requests)  # Vertex carries the version in the body
    assert server.request_headers[0]["authorization"] == "Bearer skipped-auth"
    assert out.result.text == "done"
    # a regional Vertex endpoint is priced 10% above the global one
    assert engine.usage.cost_usd == pytest.approx(1.1 * engine.usage.total.cost_usd("claude-sonnet-4-6", Provider.FIRST_PARTY))


async def test_foundry_under_its_resource_prefix(tmp_path, monkeypatch):
    async with FakeAnthropicServer(_turns()) as server:
        monkeypatch.setenv("CLAUDE_CODE_USE_FOUNDRY", "1")
        monkeypatch.setenv("ANTHROPIC_FOUNDRY_API_KEY", "fake-foundry-key")
        monkeypatch.setenv("ANTHROPIC_FOUNDRY_BASE_URL", f"{server.base_url}/anthropic")
        out = await _run(_engine(tmp_path))
    assert server.request_wires == ["anthropic", "anthropic"]
    assert server.request_headers[0]["api-key"] == "fake-foundry-key"
    assert [r["model"] for r in server.requests] == ["claude-sonnet-4-6"] * 2
    assert out.result.text == "done"


async def test_a_provider_without_its_settings_fails_with_a_clear_message(tmp_path, monkeypatch):
    monkeypatch.setenv("CLAUDE_CODE_USE_VERTEX", "1")
    monkeypatch.delenv("CLOUD_ML_REGION", raising=False)
    engine = _engine(tmp_path)
    out = await collect(engine, "hi")
    assert out.result.is_error and "Google Vertex AI" in (out.result.error or "")


def test_event_stream_frames_decode_with_botocore():
    from botocore.eventstream import EventStreamBuffer

    buffer = EventStreamBuffer()
    buffer.add_data(bedrock_chunk({"type": "message_stop"}) + event_stream_frame({":message-type": "event"}, b"{}"))
    first, second = list(buffer)
    assert first.headers[":event-type"] == "chunk" and b"bytes" in first.payload
    assert second.payload == b"{}"
