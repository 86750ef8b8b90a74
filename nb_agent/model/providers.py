"""Where the model is reached: Anthropic's API, Amazon Bedrock, Google Vertex AI or Microsoft
Foundry, chosen with Claude Code's variables.

``CLAUDE_CODE_USE_BEDROCK`` / ``CLAUDE_CODE_USE_VERTEX`` / ``CLAUDE_CODE_USE_FOUNDRY`` (any
of ``1``, ``true``, ``yes``, ``on``) select a cloud; otherwise the first-party API is used
(possibly through an LLM gateway at ``ANTHROPIC_BASE_URL``). ``NB_AGENT_PROVIDER`` names one
directly and wins over the three flags. Each provider's SDK client reads its own variables
(``AWS_REGION``, ``AWS_BEARER_TOKEN_BEDROCK``, ``ANTHROPIC_BEDROCK_BASE_URL``,
``CLOUD_ML_REGION``, ``ANTHROPIC_VERTEX_PROJECT_ID``, ``ANTHROPIC_VERTEX_BASE_URL``,
``ANTHROPIC_FOUNDRY_RESOURCE``, ``ANTHROPIC_FOUNDRY_API_KEY``, ``ANTHROPIC_FOUNDRY_BASE_URL``).

What a provider can do is a :class:`ProviderCapabilities`; ask with
:func:`capabilities_of` (or :func:`nb_agent.model.model_ids.supports_web_search`) rather than comparing names.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum

from nb_agent.errors import ConfigurationError


class Provider(str, Enum):
    """The four ways to reach Claude (values are Claude Code's names)."""

    FIRST_PARTY = "firstParty"
    BEDROCK = "bedrock"
    VERTEX = "vertex"
    FOUNDRY = "foundry"

    @property
    def label(self) -> str:
        """A human name for status lines."""
        return _LABELS[self]


_LABELS = {
    Provider.FIRST_PARTY: "Anthropic API",
    Provider.BEDROCK: "Amazon Bedrock",
    Provider.VERTEX: "Google Vertex AI",
    Provider.FOUNDRY: "Microsoft Foundry",
}

PROVIDER_ENV = "NB_AGENT_PROVIDER"
USE_ENV = {
    Provider.BEDROCK: "CLAUDE_CODE_USE_BEDROCK",
    Provider.VERTEX: "CLAUDE_CODE_USE_VERTEX",
    Provider.FOUNDRY: "CLAUDE_CODE_USE_FOUNDRY",
}
_TRUE = frozenset({"1", "true", "yes", "on"})

_ALIASES = {
    "firstparty": Provider.FIRST_PARTY,
    "first_party": Provider.FIRST_PARTY,
    "anthropic": Provider.FIRST_PARTY,
    "api": Provider.FIRST_PARTY,
    "bedrock": Provider.BEDROCK,
    "aws": Provider.BEDROCK,
    "vertex": Provider.VERTEX,
    "google": Provider.VERTEX,
    "foundry": Provider.FOUNDRY,
    "azure": Provider.FOUNDRY,
}
PROVIDER_NAMES = ("anthropic", "bedrock", "vertex", "foundry")
"""The names :func:`parse_provider` documents (it also takes Claude Code's ``firstParty``)."""


@dataclass(frozen=True, kw_only=True)
class ProviderCapabilities:
    """What a provider offers beyond the Messages API itself."""

    supports_web_search: bool
    """The server-side ``web_search`` tool (Claude 4 models on Vertex; never on Bedrock)."""
    supports_token_counting: bool
    """``messages/count_tokens`` exists (Bedrock has no such endpoint)."""
    web_search_needs_claude_4: bool = False
    """Web search only on Claude 4+ models (Vertex)."""


CAPABILITIES: dict[Provider, ProviderCapabilities] = {
    Provider.FIRST_PARTY: ProviderCapabilities(supports_web_search=True, supports_token_counting=True),
    Provider.BEDROCK: ProviderCapabilities(supports_web_search=False, supports_token_counting=False),
    Provider.VERTEX: ProviderCapabilities(supports_web_search=True, supports_token_counting=True, web_search_needs_claude_4=True),
    Provider.FOUNDRY: ProviderCapabilities(supports_web_search=True, supports_token_counting=True),
}


def parse_provider(name: str | Provider) -> Provider:
    """``anthropic`` / ``bedrock`` / ``vertex`` / ``foundry`` (and Claude Code's ``firstParty``)."""
    if isinstance(name, Provider):
        return name
    found = _ALIASES.get(name.strip().lower())
    if found is None:
        raise ConfigurationError(f"Unknown provider {name!r}: use one of {', '.join(PROVIDER_NAMES)}")
    return found


def provider_from_env(env: Mapping[str, str] | None = None) -> Provider:
    """The provider the environment selects (``NB_AGENT_PROVIDER``, then the
    ``CLAUDE_CODE_USE_*`` flags in Claude Code's order: Bedrock, Vertex, Foundry)."""
    env = os.environ if env is None else env
    named = env.get(PROVIDER_ENV, "").strip()
    if named:
        return parse_provider(named)
    for provider, variable in USE_ENV.items():
        if env.get(variable, "").strip().lower() in _TRUE:
            return provider
    return Provider.FIRST_PARTY


def capabilities_of(provider: Provider | None = None) -> ProviderCapabilities:
    """The capabilities of ``provider`` (default: the one the environment selects)."""
    return CAPABILITIES[provider or provider_from_env()]


__all__ = [
    "CAPABILITIES",
    "PROVIDER_ENV",
    "PROVIDER_NAMES",
    "Provider",
    "ProviderCapabilities",
    "USE_ENV",
    "capabilities_of",
    "parse_provider",
    "provider_from_env",
]
