"""The default transport: the SDK's own env handling, and a clear error without a key."""

from __future__ import annotations

from nb_agent.engine import QueryEngine
from nb_agent.testing import FakeAnthropicServer, Reply, text
from nb_agent.testing.collect import collect


async def test_anthropic_base_url_is_honoured(config, monkeypatch):
    async with FakeAnthropicServer([Reply(content=[text("from the fake server")])]) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
        engine = QueryEngine(config=config)  # no transport: the default factory builds the SDK client
        out = await collect(engine, "hi")
        await engine.transport.client.close()
    assert out.result.subtype == "success", out.result
    assert out.result.text == "from the fake server"
    headers = server.request_headers[0]
    assert "sk-test" in (headers.get("x-api-key", "") + headers.get("authorization", ""))
    server.script.assert_exhausted()


async def test_missing_api_key_is_a_clear_error_and_the_engine_stays_usable(config, monkeypatch):
    engine = QueryEngine(config=config)
    out = await collect(engine, "hi")
    assert out.result.is_error
    assert "ANTHROPIC_API_KEY" in (out.result.error or "")
    assert any(m.type == "system" and "ANTHROPIC_API_KEY" in m.content for m in out.events)

    async with FakeAnthropicServer([Reply(content=[text("now it works")])]) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
        again = await collect(engine, "hi again")
        await engine.transport.client.close()
    assert again.result.subtype == "success", again.result
    assert again.result.text == "now it works"
    # Both prompts reach the model (merged into one user turn).
    [first] = server.requests[0]["messages"]
    assert [b["text"] for b in first["content"]][-2:] == ["hi", "hi again"]
