"""The ``AgentMagics`` settings carried into the engine: those of the model's side (provider,
fallback model, autocompact) and of the context (the images kept) when the engine is made,
and any of them whenever one changes."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

MODEL_SETTINGS = frozenset({"provider", "fallback_model", "auto_compact"})
CONTEXT_SETTINGS = frozenset({"keep_images"})
"""Settings of the context only: applied without rebuilding the transport."""


def apply_model_settings(config: Any, settings: Any, context_manager: Any = None) -> None:
    """Carry ``settings`` (the traitlets) into an ``EngineConfig`` (and a live context manager)."""
    from nb_agent.model.providers import parse_provider

    config.provider = parse_provider(settings.provider) if settings.provider else None
    config.fallback_model = settings.fallback_model or None
    values = {"auto_compact": bool(settings.auto_compact), "keep_images": int(settings.keep_images)}
    config.options.context = replace(config.options.context, **values)
    if context_manager is not None:
        context_manager.config = replace(context_manager.config, **values)


def apply_setting(engine: Any, settings: Any, name: str, value: Any) -> None:
    """An ``AgentMagics`` setting changed while ``engine`` exists: carry it in (it applies
    from the next run)."""
    if name in MODEL_SETTINGS:
        apply_model_settings(engine.config, settings, engine.context_manager)
        engine.usage.provider = engine.config.provider
        engine.reset_transport()
    elif name in CONTEXT_SETTINGS:
        apply_model_settings(engine.config, settings, engine.context_manager)
    elif name == "model":
        from nb_agent.engine import default_model

        engine.config.model = value or default_model()
    elif name == "max_turns":
        engine.config.max_turns = value
    elif name == "notify_after":
        engine.config.options.notify_after_s = value
    elif name == "permission_mode":
        engine.config.permission_mode = value
        if hasattr(engine.permission_policy, "set_mode"):
            engine.permission_policy.set_mode(value)
