"""The ``AgentMagics`` settings that choose the model's side: provider, fallback model,
autocompact. Applied when the engine is made and again whenever one changes."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

MODEL_SETTINGS = frozenset({"provider", "fallback_model", "auto_compact"})


def apply_model_settings(config: Any, settings: Any, context_manager: Any = None) -> None:
    """Carry ``settings`` (the traitlets) into an ``EngineConfig`` (and a live context manager)."""
    from nb_agent.context.config import ContextConfig
    from nb_agent.model.providers import parse_provider

    config.provider = parse_provider(settings.provider) if settings.provider else None
    config.fallback_model = settings.fallback_model or None
    context = ContextConfig.from_extra(config.extra)
    config.extra["context"] = replace(context, auto_compact=bool(settings.auto_compact))
    if context_manager is not None:
        context_manager.config = replace(context_manager.config, auto_compact=bool(settings.auto_compact))
