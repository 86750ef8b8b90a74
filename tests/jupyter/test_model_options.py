"""Model-side settings from the notebook: --max-budget, --fallback-model, %agent provider,
AgentMagics.provider / fallback_model / auto_compact / keep_images."""

from __future__ import annotations

from nb_agent.testing import ErrorReply, Reply, text

ENGINE = "get_ipython().magics_manager.registry['AgentMagics'].session.engine"


def test_max_budget_stops_the_cell_and_applies_to_that_cell_only(kernel, requests_since):
    kernel.server.script.add(Reply(content=[text("an expensive answer")], input_tokens=2_000_000))
    run = kernel.run("%%agent --max-budget 0.01\nspend a lot")
    assert run.status == "ok", run.errors
    assert "more than its budget of $0.0100" in run.final_bundle["text/markdown"]
    assert kernel.run(f"print({ENGINE}.config.max_budget_usd)").stdout.strip() == "None"
    bad = kernel.run("%%agent --max-budget lots\nhi")
    assert bad.status == "ok" and "expected an amount in USD" in bad.stdout
    kernel.run("%agent new")  # the 2M-token answer would make the next run compact first


def test_fallback_model_from_the_cell_takes_over_after_repeated_overloads(kernel, requests_since):
    overloaded = ErrorReply(status=529, error_type="overloaded_error")
    kernel.server.script.add(overloaded, overloaded, overloaded, Reply(content=[text("answered by the fallback")]))
    run = kernel.run("%%agent --fallback-model haiku\nhello?", timeout=60)
    assert run.status == "ok", run.errors
    models = [r["model"] for r in requests_since()]
    assert models[-1] == "claude-haiku-4-5" and models[0] == "claude-sonnet-4-6"
    assert "answered by the fallback" in run.final_bundle["text/markdown"]
    assert kernel.run(f"print({ENGINE}.config.fallback_model)").stdout.strip() == "None"


def test_provider_command_and_traitlets(kernel):
    out = kernel.run("%agent provider").stdout
    assert "Provider: Anthropic API (firstParty, from the environment)" in out
    try:
        out = kernel.run("%agent provider vertex").stdout
        assert "Provider: Google Vertex AI (vertex, set in this kernel)" in out
        assert "provider   Google Vertex AI" in kernel.run("%agent status").stdout
        bad = kernel.run("%agent provider openai")
        assert bad.status == "ok" and "Unknown provider 'openai'" in bad.stdout
        assert "Google Vertex AI" in kernel.run("%agent provider").stdout
        kernel.run('%config AgentMagics.fallback_model = "opus"')
        assert "fallback   claude-opus-4-6" in kernel.run("%agent status").stdout
    finally:
        kernel.run('%config AgentMagics.provider = ""')
        kernel.run('%config AgentMagics.fallback_model = ""')
    assert "Anthropic API" in kernel.run("%agent provider").stdout


def test_auto_compact_setting_reaches_the_engine(kernel):
    kernel.run("%agent new")
    try:
        kernel.run("%config AgentMagics.auto_compact = False")
        assert kernel.run(f"print({ENGINE}.context_manager.config.auto_compact)").stdout.strip() == "False"
    finally:
        kernel.run("%config AgentMagics.auto_compact = True")
    assert kernel.run(f"print({ENGINE}.context_manager.config.auto_compact)").stdout.strip() == "True"


def test_keep_images_setting_reaches_the_engine_within_its_range(kernel):
    kernel.run("%agent new")
    try:
        kernel.run("%config AgentMagics.keep_images = 6")
        assert kernel.run(f"print({ENGINE}.context_manager.config.keep_images)").stdout.strip() == "6"
        kernel.run("%config AgentMagics.keep_images = 50")
        assert kernel.run(f"print({ENGINE}.context_manager.config.keep_images)").stdout.strip() == "8"
    finally:
        kernel.run("%config AgentMagics.keep_images = 4")
    assert kernel.run(f"print({ENGINE}.context_manager.config.keep_images)").stdout.strip() == "4"
