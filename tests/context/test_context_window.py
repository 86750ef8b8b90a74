"""Per-model thresholds (SPEC §4) and how the window's tokens are counted."""

from __future__ import annotations

import pytest

from nb_agent.context.config import ContextConfig, thresholds_for
from nb_agent.context.tokens import UsageAnchors, estimate_messages_tokens
from nb_agent.messages import AssistantMessage, UserMessage
from nb_agent.model.models import UNKNOWN_MODEL, model_info


@pytest.mark.parametrize(
    ("model", "window", "max_output"),
    [
        ("claude-sonnet-4-6", 200_000, 64_000),
        ("claude-opus-4-6", 200_000, 128_000),
        ("claude-haiku-4-5-20251001", 200_000, 64_000),
        ("claude-sonnet-4-5-20250929", 200_000, 64_000),
        ("claude-opus-4-1-20250805", 200_000, 32_000),
        ("claude-opus-4-20250514", 200_000, 32_000),
        ("claude-3-5-haiku-latest", 200_000, 8_192),
        ("us.anthropic.claude-sonnet-4-5-20250929-v1:0", 200_000, 64_000),
        ("claude-sonnet-4-5[1m]", 1_000_000, 64_000),
    ],
)
def test_known_models(model, window, max_output):
    info = model_info(model)
    assert (info.context_window, info.max_output_tokens, info.known) == (window, max_output, True)


def test_unknown_models_get_the_conservative_default():
    assert model_info("my-local-proxy") == UNKNOWN_MODEL
    assert (UNKNOWN_MODEL.context_window, UNKNOWN_MODEL.max_output_tokens) == (200_000, 8_192)


def test_thresholds_for_a_64k_output_model():
    t = thresholds_for("claude-sonnet-4-6")
    assert t.effective_window == 180_000
    assert (t.autocompact, t.warning, t.error, t.blocking) == (167_000, 160_000, 160_000, 177_000)
    assert [t.level(n) for n in (159_999, 160_000, 176_999, 177_000)] == ["ok", "warning", "warning", "blocking"]


def test_thresholds_for_small_output_models_and_overrides():
    assert thresholds_for("claude-3-5-haiku").effective_window == 200_000 - 8_192
    assert thresholds_for("claude-opus-4-1").effective_window == 180_000
    small = thresholds_for("claude-sonnet-4-6", ContextConfig(context_window=60_000))
    assert (small.autocompact, small.blocking) == (27_000, 37_000)


def test_context_config_reaches_the_engine(tmp_path):
    from nb_agent.engine import EngineConfig, EngineOptions, QueryEngine

    assert QueryEngine(config=EngineConfig(cwd=tmp_path)).context_manager.config.tool_use_summaries is False
    options = EngineOptions(context=ContextConfig(auto_compact=False, tool_use_summaries=True))
    config = QueryEngine(config=EngineConfig(cwd=tmp_path, options=options)).context_manager.config
    assert config.auto_compact is False and config.tool_use_summaries is True


def test_the_last_reported_usage_anchors_the_count():
    prompt = UserMessage(content="x" * 4_000)
    answer = AssistantMessage(content=[{"type": "text", "text": "ok"}], message_id="m1", model="m")
    later = UserMessage(content="y" * 400)
    anchors = UsageAnchors()
    assert anchors.estimate([prompt, answer, later]) == estimate_messages_tokens([prompt, answer, later])
    anchors.record(answer.uuid, 12_345)  # system prompt and tools included: more than the estimate
    assert anchors.estimate([prompt, answer, later]) == 12_345 + estimate_messages_tokens([later])
    anchors.note_freed([prompt, answer, later], 0, 500)  # cleared before the anchor
    anchors.note_freed([prompt, answer, later], 2, 50)  # after it: already counted by estimate
    assert anchors.estimate([prompt, answer, later]) == 12_345 - 500 + estimate_messages_tokens([later])
    assert anchors.estimate([prompt, later]) == estimate_messages_tokens([prompt, later]), "no anchor in the window"
