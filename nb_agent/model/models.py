"""What each model can hold: context window and maximum output tokens (SPEC §4).

The context thresholds (autocompact, warning, blocking) are computed from these two
numbers. Ids are matched by the longest known prefix after dropping a provider prefix
(``anthropic.``, ``us.anthropic.``) so dated ids (``claude-opus-4-1-20250805``) and
``-latest`` aliases resolve. A ``[1m]`` suffix selects the 1M-token context window.

Unknown models get a conservative default: a 200,000-token window (every current
Claude model has at least that) and an 8,192-token output maximum (the smallest output
limit among current models, so a request never asks for more than the model allows).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

DEFAULT_CONTEXT_WINDOW = 200_000
ONE_MILLION_CONTEXT_WINDOW = 1_000_000
ONE_MILLION_SUFFIX = "[1m]"


@dataclass(frozen=True, kw_only=True)
class ModelInfo:
    context_window: int
    max_output_tokens: int
    known: bool = True


MODELS: dict[str, ModelInfo] = {
    "claude-opus-4-6": ModelInfo(context_window=200_000, max_output_tokens=128_000),
    "claude-sonnet-4-6": ModelInfo(context_window=200_000, max_output_tokens=64_000),
    "claude-opus-4-5": ModelInfo(context_window=200_000, max_output_tokens=64_000),
    "claude-sonnet-4-5": ModelInfo(context_window=200_000, max_output_tokens=64_000),
    "claude-haiku-4-5": ModelInfo(context_window=200_000, max_output_tokens=64_000),
    "claude-opus-4-1": ModelInfo(context_window=200_000, max_output_tokens=32_000),
    "claude-opus-4": ModelInfo(context_window=200_000, max_output_tokens=32_000),
    "claude-sonnet-4": ModelInfo(context_window=200_000, max_output_tokens=64_000),
    "claude-3-7-sonnet": ModelInfo(context_window=200_000, max_output_tokens=64_000),
    "claude-3-5-sonnet": ModelInfo(context_window=200_000, max_output_tokens=8_192),
    "claude-3-5-haiku": ModelInfo(context_window=200_000, max_output_tokens=8_192),
    "claude-3-opus": ModelInfo(context_window=200_000, max_output_tokens=4_096),
    "claude-3-haiku": ModelInfo(context_window=200_000, max_output_tokens=4_096),
}
"""Longest prefix wins, so ``claude-opus-4-1`` is not read as ``claude-opus-4``."""

UNKNOWN_MODEL = ModelInfo(context_window=DEFAULT_CONTEXT_WINDOW, max_output_tokens=8_192, known=False)

_PROVIDER_PREFIXES = ("us.anthropic.", "eu.anthropic.", "apac.anthropic.", "global.anthropic.", "anthropic.", "anthropic/")


def _normalize(model: str) -> str:
    name = model.strip().lower()
    for prefix in _PROVIDER_PREFIXES:
        if name.startswith(prefix):
            name = name[len(prefix) :]
            break
    return name


@lru_cache(maxsize=64)  # asked several times per turn (thresholds, output cap), always the same few ids
def model_info(model: str) -> ModelInfo:
    """The model's context window and output limit (conservative default if unknown)."""
    name = _normalize(model)
    one_million = name.endswith(ONE_MILLION_SUFFIX)
    if one_million:
        name = name[: -len(ONE_MILLION_SUFFIX)]
    best = ""
    for prefix in MODELS:
        if name.startswith(prefix) and len(prefix) > len(best):
            best = prefix
    info = MODELS[best] if best else UNKNOWN_MODEL
    if one_million:
        return ModelInfo(context_window=ONE_MILLION_CONTEXT_WINDOW, max_output_tokens=info.max_output_tokens, known=info.known)
    return info


def context_window_for(model: str) -> int:
    return model_info(model).context_window


def max_output_tokens_for(model: str) -> int:
    """The most output tokens a request to ``model`` may ask for."""
    return model_info(model).max_output_tokens


__all__ = [
    "DEFAULT_CONTEXT_WINDOW",
    "MODELS",
    "ModelInfo",
    "UNKNOWN_MODEL",
    "context_window_for",
    "max_output_tokens_for",
    "model_info",
]
