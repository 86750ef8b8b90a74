"""USD prices per million tokens, by model family and provider, and usage accounting.

Prices are Anthropic's list prices; cache writes (5-minute) cost 1.25x input and cache
reads 0.1x. Bedrock and Vertex charge the same for global endpoints; their regional
endpoints (a Bedrock ``us.``/``eu.``/``apac.`` inference profile, a Vertex region other
than ``global``) cost 10% more for Claude Sonnet 4.5, Haiku 4.5 and later models.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from nb_agent.model.model_ids import base_model_name, family, generation
from nb_agent.model.providers import Provider, provider_from_env

CACHE_WRITE_MULTIPLIER = 1.25
CACHE_READ_MULTIPLIER = 0.1
REGIONAL_PREMIUM = 1.1


@dataclass(frozen=True, kw_only=True)
class ModelPricing:
    input: float
    output: float
    cache_write: float
    cache_read: float

    def scaled(self, factor: float) -> ModelPricing:
        return ModelPricing(
            input=self.input * factor,
            output=self.output * factor,
            cache_write=self.cache_write * factor,
            cache_read=self.cache_read * factor,
        )


def _family(input: float, output: float) -> ModelPricing:
    return ModelPricing(input=input, output=output, cache_write=input * CACHE_WRITE_MULTIPLIER, cache_read=input * CACHE_READ_MULTIPLIER)


# Longest prefix of the first-party family name wins.
PRICING: dict[str, ModelPricing] = {
    "claude-opus-4-5": _family(5.0, 25.0),
    "claude-opus-4-6": _family(5.0, 25.0),
    "claude-opus-4-1": _family(15.0, 75.0),
    "claude-opus-4": _family(15.0, 75.0),
    "claude-sonnet-4": _family(3.0, 15.0),
    "claude-3-7-sonnet": _family(3.0, 15.0),
    "claude-3-5-sonnet": _family(3.0, 15.0),
    "claude-haiku-4": _family(1.0, 5.0),
    "claude-3-5-haiku": _family(0.8, 4.0),
    "claude-3-haiku": _family(0.25, 1.25),
    "claude-3-opus": _family(15.0, 75.0),
}
DEFAULT_PRICING = PRICING["claude-sonnet-4"]
_NEWEST_OF_FAMILY = {"opus": "claude-opus-4-6", "sonnet": "claude-sonnet-4", "haiku": "claude-haiku-4"}


def _guess(name: str) -> ModelPricing:
    """An unknown Claude id of generation 4+ prices as the newest of its family; else Sonnet."""
    kind = family(name)
    if kind is None or generation(name) < 4:
        return DEFAULT_PRICING
    return PRICING[_NEWEST_OF_FAMILY[kind]]


_REGIONAL_BEDROCK_PREFIXES = ("us.", "eu.", "apac.", "jp.", "au.", "us-gov.")


def _has_regional_pricing(name: str) -> bool:
    """Sonnet 4.5 / Haiku 4.5 / Opus 4.5 and later."""
    gen = generation(name)
    if gen >= 5:
        return True
    if gen < 4:
        return False
    parts = name.split("-")
    minor = parts[3] if len(parts) > 3 and parts[3].isdigit() else "0"
    return int(minor) >= 5


def is_regional_endpoint(model: str, provider: Provider, env: Mapping[str, str] | None = None) -> bool:
    """Whether requests go to a regional (not global) endpoint of a cloud provider."""
    env = os.environ if env is None else env
    if provider is Provider.BEDROCK:
        return model.strip().lower().startswith(_REGIONAL_BEDROCK_PREFIXES)
    if provider is Provider.VERTEX:
        return (env.get("CLOUD_ML_REGION") or "global").strip().lower() != "global"
    return False


def pricing_for(model: str, provider: Provider | None = None) -> tuple[ModelPricing, bool]:
    """The model's pricing on ``provider`` (default: the environment's) and whether the
    model was known (unknown models price as Sonnet)."""
    name = base_model_name(model).removesuffix("[1m]")
    best = ""
    for prefix in PRICING:
        if name.startswith(prefix) and len(prefix) > len(best):
            best = prefix
    pricing, known = (PRICING[best], True) if best else (_guess(name), False)
    provider = provider or provider_from_env()
    if is_regional_endpoint(model, provider) and _has_regional_pricing(name):
        pricing = pricing.scaled(REGIONAL_PREMIUM)
    return pricing, known


@dataclass(frozen=True, kw_only=True)
class Usage:
    """Token counts of one response or a running total."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cache_creation_input_tokens=self.cache_creation_input_tokens + other.cache_creation_input_tokens,
            cache_read_input_tokens=self.cache_read_input_tokens + other.cache_read_input_tokens,
        )

    def __sub__(self, other: Usage) -> Usage:
        return Usage(
            input_tokens=self.input_tokens - other.input_tokens,
            output_tokens=self.output_tokens - other.output_tokens,
            cache_creation_input_tokens=self.cache_creation_input_tokens - other.cache_creation_input_tokens,
            cache_read_input_tokens=self.cache_read_input_tokens - other.cache_read_input_tokens,
        )

    @property
    def context_tokens(self) -> int:
        """Tokens the request occupied in the context window."""
        return self.input_tokens + self.cache_creation_input_tokens + self.cache_read_input_tokens

    @property
    def cache_read_share(self) -> float:
        """The share of input tokens read from the prompt cache (0 when there was no input)."""
        total = self.context_tokens
        return self.cache_read_input_tokens / total if total else 0.0

    def cost_usd(self, model: str, provider: Provider | None = None) -> float:
        p, _ = pricing_for(model, provider)
        return (
            self.input_tokens * p.input
            + self.output_tokens * p.output
            + self.cache_creation_input_tokens * p.cache_write
            + self.cache_read_input_tokens * p.cache_read
        ) / 1_000_000
