"""Provider selection from the environment and capability flags."""

from __future__ import annotations

import pytest

from nb_agent.errors import ConfigurationError
from nb_agent.model.model_ids import supports_web_search
from nb_agent.model.providers import Provider, capabilities_of, parse_provider, provider_from_env


def test_first_party_by_default() -> None:
    assert provider_from_env({}) is Provider.FIRST_PARTY
    assert provider_from_env({"CLAUDE_CODE_USE_BEDROCK": "0", "CLAUDE_CODE_USE_VERTEX": "false"}) is Provider.FIRST_PARTY


@pytest.mark.parametrize(
    ("variable", "provider"),
    [("CLAUDE_CODE_USE_BEDROCK", Provider.BEDROCK), ("CLAUDE_CODE_USE_VERTEX", Provider.VERTEX), ("CLAUDE_CODE_USE_FOUNDRY", Provider.FOUNDRY)],
)
@pytest.mark.parametrize("value", ["1", "true", "TRUE", "yes", "on"])
def test_claude_code_flags_select_a_cloud(variable: str, provider: Provider, value: str) -> None:
    assert provider_from_env({variable: value}) is provider


def test_bedrock_wins_like_claude_code_and_nb_agent_provider_wins_over_all() -> None:
    both = {"CLAUDE_CODE_USE_VERTEX": "1", "CLAUDE_CODE_USE_BEDROCK": "1"}
    assert provider_from_env(both) is Provider.BEDROCK
    assert provider_from_env({**both, "NB_AGENT_PROVIDER": "foundry"}) is Provider.FOUNDRY


def test_parse_provider_names_and_a_clear_error() -> None:
    assert parse_provider("Anthropic") is Provider.FIRST_PARTY
    assert parse_provider("firstParty") is Provider.FIRST_PARTY
    assert parse_provider(" vertex ") is Provider.VERTEX
    with pytest.raises(ConfigurationError, match="anthropic, bedrock, vertex, foundry"):
        parse_provider("openai")


def test_capabilities() -> None:
    assert not capabilities_of(Provider.BEDROCK).supports_token_counting
    assert capabilities_of(Provider.VERTEX).supports_token_counting
    assert not supports_web_search(Provider.BEDROCK, "claude-sonnet-4-6")
    assert supports_web_search(Provider.FIRST_PARTY, "anything")
    assert supports_web_search(Provider.FOUNDRY)
    assert supports_web_search(Provider.VERTEX, "claude-sonnet-4-5@20250929")
    assert supports_web_search(Provider.VERTEX, "claude-opus-5")
    assert not supports_web_search(Provider.VERTEX, "claude-3-7-sonnet@20250219")


def test_environment_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAUDE_CODE_USE_BEDROCK", "1")
    assert not supports_web_search()
    monkeypatch.delenv("CLAUDE_CODE_USE_BEDROCK")
    assert supports_web_search()
