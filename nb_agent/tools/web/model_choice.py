"""Which model a web tool's side call uses, and whether the provider can search the web:
the engine's resolvers (``nb_agent.model``), with nb_agent's own switch for web search.
``provider`` is the session's (``%agent provider`` may differ from the environment);
``None`` reads the environment."""

from __future__ import annotations

import os

from nb_agent.model.model_ids import main_model, supports_web_search
from nb_agent.model.model_ids import small_fast_model as resolve_small_fast_model
from nb_agent.model.providers import Provider, provider_from_env

WEB_SEARCH_ENV = "NB_AGENT_WEB_SEARCH"


def small_fast_model(provider: Provider | None = None) -> str:
    """The model for quick side calls (WebFetch's answer about a page), in the provider's id form."""
    return resolve_small_fast_model(provider)


def web_search_unavailable_reason(model: str | None = None, provider: Provider | None = None) -> str | None:
    """Why the Messages API's server-side web search cannot be used here, or ``None``.
    ``model`` matters on Vertex (Claude 4 models only); ``None`` means the session default."""
    if os.environ.get(WEB_SEARCH_ENV, "").strip().lower() in ("0", "off", "false", "no"):
        return f"turned off by {WEB_SEARCH_ENV}"
    provider = provider or provider_from_env()
    if model is None:
        model = main_model()
    if not supports_web_search(provider, model):
        return f"the provider ({provider.label}) has no server-side web search tool for {model}"
    return None
