"""Recovery from requests the API refuses as too large (SPEC §2): prompt-too-long →
reactive compact once, then ``prompt_too_long``; media too large → reactive compact with
media stripped, then ``image_error``."""

from __future__ import annotations

import json

from nb_agent.testing import ErrorReply, Reply, prompt_too_long_error, text
from nb_agent.testing.collect import assert_history_invariant, collect

IMAGE = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo" * 100}}


def media_too_large() -> ErrorReply:
    return ErrorReply(status=400, error_type="invalid_request_error", message="messages.1.content.1.image.source.base64: image exceeds 5 MB maximum")


async def _with_history(make_engine, fake_model, main, **kw):
    model = fake_model([Reply(content=[text("earlier answer")]), *main], **kw)
    engine = make_engine(model.transport())
    await collect(engine, "earlier question")
    return engine, model


async def test_prompt_too_long_compacts_once_and_retries(make_engine, fake_model):
    engine, model = await _with_history(make_engine, fake_model, [prompt_too_long_error(), Reply(content=[text("recovered")])], summary_text="Earlier: one question answered.")
    out = await collect(engine, "next question")
    assert out.result.subtype == "success" and out.result.text == "recovered"
    [boundary] = out.of_type("compact_boundary")
    assert boundary.trigger == "reactive"
    retried = json.dumps(model.main_requests[-1]["messages"])
    assert "Earlier: one question answered." in retried and "next question" in retried
    assert not [e for e in out.events if e.type == "assistant" and e.is_api_error_message]
    assert engine.context_manager.stats.compactions["reactive"] == 1
    assert_history_invariant(engine.messages)


async def test_prompt_too_long_again_after_compacting_ends_the_run(make_engine, fake_model):
    engine, model = await _with_history(make_engine, fake_model, [prompt_too_long_error(), prompt_too_long_error()])
    out = await collect(engine, "next question")
    assert out.result.terminal_reason == "prompt_too_long" and out.result.is_error
    assert len(model.summary_requests) == 1, "reactive compaction is tried once per turn"
    [error] = [e for e in out.events if e.type == "assistant" and e.is_api_error_message]
    assert "Prompt is too long" in error.text


async def test_prompt_too_long_with_a_failing_summary_ends_the_run_and_keeps_history(make_engine, fake_model):
    engine, model = await _with_history(make_engine, fake_model, [prompt_too_long_error()], summaries=[ErrorReply(status=500)])
    before = len(engine.messages)
    out = await collect(engine, "next question")
    assert out.result.terminal_reason == "prompt_too_long"
    assert not out.of_type("compact_boundary")
    assert [m.type for m in engine.messages[:before]] == ["user", "assistant"]
    assert any(m.type == "user" and m.content == "next question" for m in engine.messages)


async def test_media_too_large_strips_media_from_the_kept_tail(make_engine, fake_model):
    engine, model = await _with_history(make_engine, fake_model, [media_too_large(), Reply(content=[text("described")])])
    out = await collect(engine, [{"type": "text", "text": "what is in this picture?"}, IMAGE])
    assert out.result.subtype == "success" and out.result.text == "described"
    retried = model.main_requests[-1]["messages"]
    blocks = [b for m in retried for b in m["content"]]
    assert not [b for b in blocks if b.get("type") == "image"]
    assert any("image removed to fit the request" in b.get("text", "") for b in blocks)
    assert any("what is in this picture?" in b.get("text", "") for b in blocks)


async def test_media_too_large_that_cannot_be_compacted_ends_with_image_error(make_engine, fake_model):
    model = fake_model([media_too_large()])
    engine = make_engine(model.transport())
    out = await collect(engine, [{"type": "text", "text": "look"}, IMAGE])
    assert out.result.terminal_reason == "image_error" and out.result.is_error
    assert model.summary_requests == [], "nothing before the prompt to summarize"
