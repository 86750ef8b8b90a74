"""What each model can hold: context window and maximum output tokens (SPEC §4).

The context thresholds (autocompact, warning, blocking) are computed from these two
numbers. Ids are matched by the longest known prefix of their first-party family name
(:func:`~nb_agent.model.model_ids.base_model_name`: provider prefixes, Vertex ``@date``,
Bedrock ``-v1:0``, dates and aliases are undone). A ``[1m]`` suffix selects the 1M-token
context window.

An unknown Claude id of generation 4 or later (a newer ``claude-sonnet-5``) gets the limits
of the newest known model of its family, marked ``guessed``. Anything else unknown gets a
conservative default: a 200,000-token window and an 8,192-token output maximum.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache

from nb_agent.model.model_ids import ONE_MILLION_SUFFIX, base_model_name, family, generation

DEFAULT_CONTEXT_WINDOW = 200_000
ONE_MILLION_CONTEXT_WINDOW = 1_000_000


@dataclass(frozen=True, kw_only=True)
class ModelInfo:
    context_window: int
    max_output_tokens: int
    known: bool = True
    guessed: bool = False
    """Not in the table: limits taken from the newest model of the id's family."""


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

NEWEST_OF_FAMILY = {"opus": "claude-opus-4-6", "sonnet": "claude-sonnet-4-6", "haiku": "claude-haiku-4-5"}
"""Whose limits an unknown Claude id of that family borrows."""


def _guess(name: str) -> ModelInfo:
    kind = family(name)
    if kind is None or generation(name) < 4:
        return UNKNOWN_MODEL
    newest = MODELS[NEWEST_OF_FAMILY[kind]]
    return ModelInfo(context_window=newest.context_window, max_output_tokens=newest.max_output_tokens, known=False, guessed=True)


@lru_cache(maxsize=64)  # asked several times per turn (thresholds, output cap), always the same few ids
def model_info(model: str) -> ModelInfo:
    """The model's context window and output limit (conservative default if unknown)."""
    name = base_model_name(model)
    one_million = name.endswith(ONE_MILLION_SUFFIX)
    if one_million:
        name = name[: -len(ONE_MILLION_SUFFIX)]
    best = ""
    for prefix in MODELS:
        if name.startswith(prefix) and len(prefix) > len(best):
            best = prefix
    info = MODELS[best] if best else _guess(name)
    if one_million:
        return replace(info, context_window=ONE_MILLION_CONTEXT_WINDOW)
    return info


def context_window_for(model: str) -> int:
    return model_info(model).context_window


def max_output_tokens_for(model: str) -> int:
    """The most output tokens a request to ``model`` may ask for."""
    return model_info(model).max_output_tokens


def describe_limits(model: str) -> str:
    """``context 200k · output 64k`` plus, for a model not in the table, how it was guessed."""
    info = model_info(model)
    limits = f"context {info.context_window // 1000}k · output {info.max_output_tokens // 1000}k"
    if info.guessed:
        return f"{limits} (guessed: {base_model_name(model)} is not in nb_agent's table; limits of the newest {family(model)})"
    if not info.known:
        return f"{limits} (guessed: unknown model, conservative defaults)"
    return limits


__all__ = [
    "describe_limits",
    "DEFAULT_CONTEXT_WINDOW",
    "MODELS",
    "ModelInfo",
    "UNKNOWN_MODEL",
    "context_window_for",
    "max_output_tokens_for",
    "model_info",
]
