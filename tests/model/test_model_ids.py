"""Aliases, the main and small fast models, provider id forms, guessed limits."""

from __future__ import annotations

import pytest

from nb_agent.model.model_ids import base_model_name, main_model, provider_model_id, resolve_model, small_fast_model
from nb_agent.model.models import model_info
from nb_agent.model.pricing import Usage, pricing_for
from nb_agent.model.providers import Provider

FIRST = Provider.FIRST_PARTY


@pytest.mark.parametrize(
    ("alias", "expected"),
    [("sonnet", "claude-sonnet-4-6"), ("opus", "claude-opus-4-6"), ("haiku", "claude-haiku-4-5"), ("Opus[1m]", "claude-opus-4-6[1m]")],
)
def test_aliases_resolve_to_the_current_model_of_the_family(alias: str, expected: str) -> None:
    assert resolve_model(alias, FIRST, {}) == expected


def test_alias_overrides_come_from_claude_codes_variables() -> None:
    env = {"ANTHROPIC_DEFAULT_SONNET_MODEL": "my-gateway-sonnet", "ANTHROPIC_DEFAULT_OPUS_MODEL": "arn:aws:bedrock:x/opus"}
    assert resolve_model("sonnet", Provider.BEDROCK, env) == "my-gateway-sonnet"
    assert resolve_model("opus", Provider.BEDROCK, env) == "arn:aws:bedrock:x/opus"
    assert resolve_model("haiku", FIRST, env) == "claude-haiku-4-5"


def test_main_model_prefers_nb_agent_model_then_anthropic_model() -> None:
    assert main_model({}) == "claude-sonnet-4-6"
    assert main_model({"ANTHROPIC_MODEL": "opus"}) == "opus"
    assert main_model({"ANTHROPIC_MODEL": "opus", "NB_AGENT_MODEL": "haiku"}) == "haiku"


def test_small_fast_model_order_and_provider_form() -> None:
    assert small_fast_model(FIRST, {}) == "claude-haiku-4-5"
    assert small_fast_model(FIRST, {"ANTHROPIC_DEFAULT_HAIKU_MODEL": "h"}) == "h"
    assert small_fast_model(FIRST, {"ANTHROPIC_DEFAULT_HAIKU_MODEL": "h", "ANTHROPIC_SMALL_FAST_MODEL": "s"}) == "s"
    assert small_fast_model(Provider.VERTEX, {}) == "claude-haiku-4-5@20251001"
    assert small_fast_model(Provider.BEDROCK, {"AWS_REGION": "eu-central-1"}) == "eu.anthropic.claude-haiku-4-5-20251001-v1:0"
    assert small_fast_model(Provider.FOUNDRY, {}) == "claude-haiku-4-5"


def test_provider_ids_map_first_party_ids_and_leave_the_rest() -> None:
    env = {"AWS_REGION": "us-west-2"}
    assert provider_model_id("claude-sonnet-4-5", Provider.BEDROCK, env) == "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
    assert provider_model_id("claude-sonnet-4-5", Provider.VERTEX, env) == "claude-sonnet-4-5@20250929"
    assert provider_model_id("claude-sonnet-4-5", Provider.FOUNDRY, env) == "claude-sonnet-4-5"
    # already in a provider's form, dated, or unknown: sent as given
    for given in ("global.anthropic.claude-sonnet-4-5-20250929-v1:0", "claude-sonnet-4-5-20250929", "claude-sonnet-9", "claude-x@1"):
        assert provider_model_id(given, Provider.BEDROCK, env) == given
    assert provider_model_id("claude-opus-4-6[1m]", Provider.BEDROCK, {"AWS_REGION": "ap-northeast-1"}) == "apac.anthropic.claude-opus-4-6-v1[1m]"


@pytest.mark.parametrize(
    "form",
    ["us.anthropic.claude-sonnet-4-5-20250929-v1:0", "anthropic.claude-sonnet-4-5-20250929-v1:0", "claude-sonnet-4-5@20250929", "claude-sonnet-4-5-20250929", "CLAUDE-SONNET-4-5"],
)
def test_every_form_maps_back_to_the_family(form: str) -> None:
    assert base_model_name(form) == "claude-sonnet-4-5"
    assert model_info(form).known


def test_unknown_claude_ids_borrow_their_family_limits_and_say_so() -> None:
    sonnet5 = model_info("claude-sonnet-5")
    assert (sonnet5.max_output_tokens, sonnet5.guessed, sonnet5.known) == (64_000, True, False)
    assert model_info("claude-opus-5-1-20270101").max_output_tokens == 128_000
    assert model_info("us.anthropic.claude-haiku-5-v1:0").guessed
    # an old generation or a non-Claude id keeps the conservative default, not guessed
    for other in ("claude-3-9-sonnet", "gpt-5", "my-proxy-model"):
        info = model_info(other)
        assert (info.max_output_tokens, info.guessed) == (8_192, False)


def test_pricing_per_provider_and_family_guess() -> None:
    million = Usage(input_tokens=1_000_000)
    assert million.cost_usd("claude-sonnet-4-5", FIRST) == pytest.approx(3.0)
    # Bedrock regional inference profiles and Vertex regions carry a 10% premium for 4.5+
    assert million.cost_usd("us.anthropic.claude-sonnet-4-5-20250929-v1:0", Provider.BEDROCK) == pytest.approx(3.3)
    assert million.cost_usd("global.anthropic.claude-sonnet-4-5-20250929-v1:0", Provider.BEDROCK) == pytest.approx(3.0)
    assert million.cost_usd("us.anthropic.claude-sonnet-4-20250514-v1:0", Provider.BEDROCK) == pytest.approx(3.0)
    assert pricing_for("claude-opus-5", FIRST) == (pricing_for("claude-opus-4-6", FIRST)[0], False)


def test_vertex_regional_premium_reads_cloud_ml_region(monkeypatch: pytest.MonkeyPatch) -> None:
    million = Usage(input_tokens=1_000_000)
    monkeypatch.setenv("CLOUD_ML_REGION", "us-east5")
    assert million.cost_usd("claude-haiku-4-5@20251001", Provider.VERTEX) == pytest.approx(1.1)
    monkeypatch.setenv("CLOUD_ML_REGION", "global")
    assert million.cost_usd("claude-haiku-4-5@20251001", Provider.VERTEX) == pytest.approx(1.0)
