"""USD prices per million tokens, by model family, and usage accounting."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, kw_only=True)
class ModelPricing:
    input: float
    output: float
    cache_write: float
    cache_read: float


def _family(input: float, output: float) -> ModelPricing:
    # Anthropic's published ratios: 5-minute cache writes 1.25x input, cache reads 0.1x.
    return ModelPricing(input=input, output=output, cache_write=input * 1.25, cache_read=input * 0.1)


# Longest prefix wins; ids are matched after stripping a date suffix or "-latest".
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


def pricing_for(model: str) -> tuple[ModelPricing, bool]:
    """The model's pricing and whether it was known (unknown models price as Sonnet)."""
    best = ""
    for prefix in PRICING:
        if model.startswith(prefix) and len(prefix) > len(best):
            best = prefix
    return (PRICING[best], True) if best else (DEFAULT_PRICING, False)


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

    @property
    def context_tokens(self) -> int:
        """Tokens the request occupied in the context window."""
        return self.input_tokens + self.cache_creation_input_tokens + self.cache_read_input_tokens

    def cost_usd(self, model: str) -> float:
        p, _ = pricing_for(model)
        return (
            self.input_tokens * p.input
            + self.output_tokens * p.output
            + self.cache_creation_input_tokens * p.cache_write
            + self.cache_read_input_tokens * p.cache_read
        ) / 1_000_000
