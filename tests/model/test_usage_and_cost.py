"""Usage is accounted per request and per session, and priced from the pricing table."""

from __future__ import annotations

import json

import pytest

from nb_agent.engine import QueryEngine
from nb_agent.model.pricing import PRICING, Usage, pricing_for
from nb_agent.model.transport import AnthropicTransport
from nb_agent.testing import FakeAnthropicServer, Reply, ScriptedTransport, text, tool_use
from nb_agent.testing.collect import collect
from nb_agent.testing.tools import RecordingTool


def _reply(content, *, input_tokens, output_tokens, cache_write=0, cache_read=0):
    return Reply(
        content=content,
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        cache_creation_input_tokens=cache_write,
        cache_read_input_tokens=cache_read,
    )


async def test_usage_per_request_per_submission_and_per_session(config):
    turns = [
        _reply([tool_use("Echo", {"value": "a"})], input_tokens=1000, output_tokens=50, cache_write=2000),
        _reply([text("first")], input_tokens=1100, output_tokens=20, cache_read=2000),
        _reply([text("second")], input_tokens=1300, output_tokens=30, cache_read=2000),
    ]
    async with FakeAnthropicServer(turns) as server:
        engine = QueryEngine(config=config, tools=[RecordingTool("Echo")], transport=AnthropicTransport(client=server.client()))
        first = (await collect(engine, "one")).result
        assert first.usage == Usage(input_tokens=2100, output_tokens=70, cache_creation_input_tokens=2000, cache_read_input_tokens=2000)
        assert engine.usage.last_request == Usage(input_tokens=1100, output_tokens=20, cache_read_input_tokens=2000)
        second = (await collect(engine, "two")).result
        assert second.usage == Usage(input_tokens=1300, output_tokens=30, cache_read_input_tokens=2000)

    total = engine.usage.total
    assert total == Usage(input_tokens=3400, output_tokens=100, cache_creation_input_tokens=2000, cache_read_input_tokens=4000)
    assert list(engine.usage.by_model) == ["claude-sonnet-4-6"]
    # Sonnet: $3 in, $15 out, cache writes 1.25x input, cache reads 0.1x input (per million).
    expected_first = (2100 * 3 + 70 * 15 + 2000 * 3.75 + 2000 * 0.3) / 1e6
    assert first.total_cost_usd == pytest.approx(expected_first)
    assert engine.usage.cost_usd == pytest.approx(first.total_cost_usd + second.total_cost_usd)
    entries = [json.loads(line) for line in engine.transcript_path.read_text().splitlines()]
    assert [e["usage"]["input_tokens"] for e in entries if e["kind"] == "usage"] == [1000, 1100, 1300]


@pytest.mark.parametrize(
    ("model", "family"),
    [
        ("claude-sonnet-4-5-20250929", "claude-sonnet-4"),
        ("claude-opus-4-1-20250805", "claude-opus-4-1"),
        ("claude-opus-4-5", "claude-opus-4-5"),
        ("claude-3-5-haiku-latest", "claude-3-5-haiku"),
        ("claude-haiku-4-5", "claude-haiku-4"),
    ],
)
def test_pricing_longest_prefix_wins(model, family):
    pricing, known = pricing_for(model)
    assert known and pricing == PRICING[family]


def test_unknown_models_price_as_sonnet():
    pricing, known = pricing_for("some-new-model")
    assert not known and pricing == PRICING["claude-sonnet-4"]
    assert Usage(input_tokens=1_000_000).cost_usd("some-new-model") == pytest.approx(3.0)


async def test_usage_is_counted_for_each_model_separately(config):
    turns = [
        Reply(content=[text("a")], model="claude-opus-4-1", input_tokens=100, output_tokens=10),
        Reply(content=[text("b")], model="claude-haiku-4-5", input_tokens=100, output_tokens=10),
    ]
    engine = QueryEngine(config=config, transport=ScriptedTransport(turns))
    await collect(engine, "one")
    await collect(engine, "two")
    assert set(engine.usage.by_model) == {"claude-opus-4-1", "claude-haiku-4-5"}
    assert engine.usage.cost_usd == pytest.approx((100 * 15 + 10 * 75 + 100 * 1 + 10 * 5) / 1e6)
