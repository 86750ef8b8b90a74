"""Model names: aliases, the main and small fast models, and ids per provider.

- Aliases ``sonnet``, ``opus``, ``haiku`` (optionally with ``[1m]``) stand for the current
  model of the family, or for ``ANTHROPIC_DEFAULT_SONNET_MODEL`` /
  ``ANTHROPIC_DEFAULT_OPUS_MODEL`` / ``ANTHROPIC_DEFAULT_HAIKU_MODEL`` when set.
- The main model: ``NB_AGENT_MODEL``, else ``ANTHROPIC_MODEL``, else ``claude-sonnet-4-6``.
- The small fast model for side calls (tool-use summaries, WebFetch):
  ``ANTHROPIC_SMALL_FAST_MODEL``, else ``ANTHROPIC_DEFAULT_HAIKU_MODEL``, else Haiku 4.5.
- On Bedrock and Vertex a first-party id (``claude-sonnet-4-5``) becomes the provider's
  (``us.anthropic.claude-sonnet-4-5-20250929-v1:0``, ``claude-sonnet-4-5@20250929``); an id
  already in a provider's form, or one this table does not know, is sent as given.

:func:`base_model_name` goes the other way: any of these forms back to the first-party
family name, which the limit and price tables are keyed by.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

from nb_agent.model.providers import Provider, capabilities_of, provider_from_env

DEFAULT_MAIN_MODEL = "claude-sonnet-4-6"
DEFAULT_HAIKU_MODEL = "claude-haiku-4-5"
MODEL_ENVS = ("NB_AGENT_MODEL", "ANTHROPIC_MODEL")
SMALL_FAST_MODEL_ENVS = ("ANTHROPIC_SMALL_FAST_MODEL", "ANTHROPIC_DEFAULT_HAIKU_MODEL")
ONE_MILLION_SUFFIX = "[1m]"

ALIASES: dict[str, tuple[str, str]] = {
    "sonnet": ("ANTHROPIC_DEFAULT_SONNET_MODEL", "claude-sonnet-4-6"),
    "opus": ("ANTHROPIC_DEFAULT_OPUS_MODEL", "claude-opus-4-6"),
    "haiku": ("ANTHROPIC_DEFAULT_HAIKU_MODEL", DEFAULT_HAIKU_MODEL),
}
"""alias → (the variable that overrides it, the default model)."""

PROVIDER_IDS: dict[str, dict[Provider, str]] = {
    "claude-opus-4-6": {Provider.BEDROCK: "anthropic.claude-opus-4-6-v1", Provider.VERTEX: "claude-opus-4-6"},
    "claude-sonnet-4-6": {Provider.BEDROCK: "anthropic.claude-sonnet-4-6", Provider.VERTEX: "claude-sonnet-4-6"},
    "claude-opus-4-5": {Provider.BEDROCK: "anthropic.claude-opus-4-5-20251101-v1:0", Provider.VERTEX: "claude-opus-4-5@20251101"},
    "claude-sonnet-4-5": {Provider.BEDROCK: "anthropic.claude-sonnet-4-5-20250929-v1:0", Provider.VERTEX: "claude-sonnet-4-5@20250929"},
    "claude-haiku-4-5": {Provider.BEDROCK: "anthropic.claude-haiku-4-5-20251001-v1:0", Provider.VERTEX: "claude-haiku-4-5@20251001"},
    "claude-opus-4-1": {Provider.BEDROCK: "anthropic.claude-opus-4-1-20250805-v1:0", Provider.VERTEX: "claude-opus-4-1@20250805"},
    "claude-opus-4": {Provider.BEDROCK: "anthropic.claude-opus-4-20250514-v1:0", Provider.VERTEX: "claude-opus-4@20250514"},
    "claude-sonnet-4": {Provider.BEDROCK: "anthropic.claude-sonnet-4-20250514-v1:0", Provider.VERTEX: "claude-sonnet-4@20250514"},
    "claude-3-7-sonnet": {Provider.BEDROCK: "anthropic.claude-3-7-sonnet-20250219-v1:0", Provider.VERTEX: "claude-3-7-sonnet@20250219"},
    "claude-3-5-haiku": {Provider.BEDROCK: "anthropic.claude-3-5-haiku-20241022-v1:0", Provider.VERTEX: "claude-3-5-haiku@20241022"},
}
"""First-party family → the provider's id (Foundry uses first-party ids)."""

_BEDROCK_PREFIX = re.compile(r"^(?:arn:aws[\w-]*:bedrock:[^/]+/)?(?:(?:us|eu|apac|jp|au|us-gov|global)\.)?anthropic\.")
_DATE_SUFFIX = re.compile(r"(?:-\d{8}|@\d{8}|@latest|-latest)")
_BEDROCK_VERSION = re.compile(r"-v\d+(?::\d+)?$")


def base_model_name(model: str) -> str:
    """The first-party family name of any form of id: ``us.anthropic.claude-sonnet-4-5-
    20250929-v1:0``, ``claude-sonnet-4-5@20250929`` and ``claude-sonnet-4-5-20250929`` all
    give ``claude-sonnet-4-5``; an alias gives its default model; ``[1m]`` is kept."""
    name = model.strip().lower()
    one_million = name.endswith(ONE_MILLION_SUFFIX)
    if one_million:
        name = name[: -len(ONE_MILLION_SUFFIX)]
    if name in ALIASES:
        name = ALIASES[name][1]
    name = _BEDROCK_PREFIX.sub("", name)
    if name.startswith("anthropic/"):
        name = name[len("anthropic/") :]
    name = _BEDROCK_VERSION.sub("", name)
    name = _DATE_SUFFIX.sub("", name)
    return name + (ONE_MILLION_SUFFIX if one_million else "")


def generation(name: str) -> int:
    """The major version of a family name: ``claude-sonnet-5`` → 5, ``claude-3-7-sonnet`` → 3,
    anything else → 0."""
    for part in base_model_name(name).split("-")[1:]:
        if part.isdigit():
            return int(part)
    return 0


def family(name: str) -> str | None:
    """``opus``, ``sonnet`` or ``haiku`` for a Claude id, else None."""
    base = base_model_name(name)
    if not base.startswith("claude-"):
        return None
    return next((f for f in ("opus", "sonnet", "haiku") if f in base.split("-")), None)


def priced_model(requested: str, served: str | None) -> str:
    """The id to account a response under: the one requested (it carries the cloud's endpoint
    form), unless another model answered."""
    if served and base_model_name(served) != base_model_name(requested):
        return served
    return requested or served or ""


def is_alias(model: str) -> bool:
    name = model.strip().lower()
    return name.removesuffix(ONE_MILLION_SUFFIX) in ALIASES


def bedrock_region_prefix(env: Mapping[str, str] | None = None) -> str:
    """The cross-region inference-profile prefix for ``AWS_REGION``: ``us``, ``eu``, ``apac``
    (``global`` when the region says nothing we know)."""
    env = os.environ if env is None else env
    region = (env.get("AWS_REGION") or env.get("AWS_DEFAULT_REGION") or "us-east-1").lower()
    if region.startswith(("us-", "ca-")):
        return "us"
    if region.startswith("eu-"):
        return "eu"
    if region.startswith("ap-"):
        return "apac"
    return "global"


def provider_model_id(model: str, provider: Provider, env: Mapping[str, str] | None = None) -> str:
    """``model`` (a first-party id) in ``provider``'s form; anything else unchanged."""
    if provider in (Provider.FIRST_PARTY, Provider.FOUNDRY):
        return model
    suffix = ONE_MILLION_SUFFIX if model.endswith(ONE_MILLION_SUFFIX) else ""
    bare = model[: -len(suffix)] if suffix else model
    if not bare.startswith("claude-") or "@" in bare:
        return model  # already the provider's form (or an ARN, or a custom id)
    ids = PROVIDER_IDS.get(base_model_name(bare))
    if ids is None or bare != base_model_name(bare):
        return model  # a dated or unknown id: the user knows what the provider calls it
    mapped = ids[provider]
    if provider is Provider.BEDROCK:
        mapped = f"{bedrock_region_prefix(env)}.{mapped}"
    return mapped + suffix


def resolve_model(model: str, provider: Provider | None = None, env: Mapping[str, str] | None = None) -> str:
    """The id to send: aliases expanded (honouring ``ANTHROPIC_DEFAULT_*_MODEL``), then
    mapped to the provider's form."""
    env = os.environ if env is None else env
    provider = provider or provider_from_env(env)
    name = model.strip()
    lowered = name.lower()
    suffix = ONE_MILLION_SUFFIX if lowered.endswith(ONE_MILLION_SUFFIX) else ""
    alias = lowered[: -len(suffix)] if suffix else lowered
    if alias in ALIASES:
        variable, default = ALIASES[alias]
        override = env.get(variable, "").strip()
        if override:
            return override  # the user's exact id for this provider
        name = default + suffix
    return provider_model_id(name, provider, env)


def main_model(env: Mapping[str, str] | None = None) -> str:
    """The session's model as configured (unresolved): ``NB_AGENT_MODEL``, else
    ``ANTHROPIC_MODEL``, else ``claude-sonnet-4-6``."""
    env = os.environ if env is None else env
    for variable in MODEL_ENVS:
        value = env.get(variable, "").strip()
        if value:
            return value
    return DEFAULT_MAIN_MODEL


def small_fast_model(provider: Provider | None = None, env: Mapping[str, str] | None = None) -> str:
    """The model for side calls (tool-use summaries, WebFetch's page reading), resolved for
    ``provider``: ``ANTHROPIC_SMALL_FAST_MODEL``, else ``ANTHROPIC_DEFAULT_HAIKU_MODEL``,
    else Haiku 4.5 in the provider's id form."""
    env = os.environ if env is None else env
    for variable in SMALL_FAST_MODEL_ENVS:
        value = env.get(variable, "").strip()
        if value:
            return value
    return provider_model_id(DEFAULT_HAIKU_MODEL, provider or provider_from_env(env), env)




def supports_web_search(provider: Provider | None = None, model: str | None = None) -> bool:
    """Whether a request may carry the server-side ``web_search`` tool.

    On Vertex only Claude 4 models offer it; pass ``model`` to check (unknown → allowed
    only where the provider allows it for every model)."""
    caps = capabilities_of(provider)
    if not caps.supports_web_search:
        return False
    if caps.web_search_needs_claude_4:
        name = base_model_name(model or "")
        return name.startswith("claude-") and generation(name) >= 4
    return True


__all__ = [
    "ALIASES",
    "DEFAULT_HAIKU_MODEL",
    "DEFAULT_MAIN_MODEL",
    "PROVIDER_IDS",
    "base_model_name",
    "bedrock_region_prefix",
    "family",
    "generation",
    "is_alias",
    "main_model",
    "priced_model",
    "provider_model_id",
    "resolve_model",
    "small_fast_model",
    "supports_web_search",
]
