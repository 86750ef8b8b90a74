"""SessionStart / SessionEnd / PreCompact command hooks through the engine."""

from __future__ import annotations

import json
import time

import pytest

from nb_agent.context.compact import CompactionError
from nb_agent.engine import EngineConfig, QueryEngine
from nb_agent.testing import Reply, ScriptedTransport, text
from nb_agent.testing.collect import collect

from .conftest import one, settings_hooks


def _summary(s: str = "SUMMARY") -> Reply:
    return Reply(content=[text(f"<summary>{s}</summary>")])


async def test_session_start_runs_once_before_the_first_prompt(tmp_path, hook_engine, scripts):
    hooks = settings_hooks({"SessionStart": one(scripts.command("start", stdout="Open issues: #12, #15\n"))}, project_dir=tmp_path)
    engine, transport = hook_engine([Reply(content=[text("a")]), Reply(content=[text("b")])], hooks, [])
    await collect(engine, "first")
    await collect(engine, "second")
    [hook_input] = scripts.inputs("start")
    assert hook_input["source"] == "startup" and hook_input["hook_event_name"] == "SessionStart"
    assert hook_input["session_id"] == engine.session_id and hook_input["model"] == engine.config.model
    assert hook_input["_env_project_dir"] == str(tmp_path)
    first = json.dumps(transport.requests[0]["messages"])
    assert first.index("Open issues: #12, #15") < first.index("first"), "session context comes before the first prompt"
    assert json.dumps(transport.requests[1]["messages"]).count("Open issues") == 1


async def test_a_resumed_session_starts_with_source_resume(tmp_path, scripts):
    hooks = settings_hooks({"SessionStart": one(scripts.command("start", stdout="ctx"))})
    config = EngineConfig(cwd=tmp_path)
    first = QueryEngine(config=config, transport=ScriptedTransport([Reply(content=[text("a")])]), hooks=hooks)
    await collect(first, "hello")
    first.close()
    resumed, _ = QueryEngine.resume(first.transcript_path, config=config, hooks=hooks, transport=ScriptedTransport([Reply(content=[text("b")])]))
    await collect(resumed, "again")
    assert [i["source"] for i in scripts.inputs("start")] == ["startup", "resume"]
    assert {i["session_id"] for i in scripts.inputs("start")} == {first.session_id}


async def test_new_conversation_ends_the_old_session_and_starts_a_clear_one(hook_engine, scripts):
    hooks = settings_hooks(
        {"SessionStart": one(scripts.command("start")), "SessionEnd": one(scripts.command("end", stdout="ignored output"))}
    )
    engine, _ = hook_engine([Reply(content=[text("a")])], hooks, [])
    await collect(engine, "hello")
    old = engine.session_id
    await engine.start_new_conversation()
    [end] = scripts.inputs("end")
    assert end["reason"] == "clear" and end["session_id"] == old and end["hook_event_name"] == "SessionEnd"
    assert [(i["source"], i["session_id"]) for i in scripts.inputs("start")] == [("startup", old), ("clear", engine.session_id)]
    await engine.end_session("other")
    await engine.end_session("other")
    assert [i["reason"] for i in scripts.inputs("end")] == ["clear", "other"], "once per started session"


async def test_session_end_is_bounded_by_the_cap(hook_engine, scripts):
    hooks = settings_hooks({"SessionEnd": [{"hooks": [{"type": "command", "command": scripts.command("end", sleep=100), "timeout": 200}]}]})
    engine, _ = hook_engine([Reply(content=[text("a")])], hooks, [])
    await collect(engine, "hello")
    started = time.monotonic()
    notices = await engine.end_session("other", timeout_cap=0.5)
    # Generous: only separates "waited for the hook's 100 s sleep" from "did not" (shared machines).
    assert time.monotonic() - started < 20
    assert any("timed out" in n.content for n in notices)


async def test_a_session_never_started_has_no_session_end(hook_engine, scripts):
    hooks = settings_hooks({"SessionEnd": one(scripts.command("end"))})
    engine, _ = hook_engine([], hooks, [])
    assert await engine.end_session("other") == []
    assert scripts.inputs("end") == []


async def test_exit_2_of_session_hooks_is_shown_to_the_user_only(hook_engine, scripts):
    hooks = settings_hooks({"SessionStart": one(scripts.command("start", stderr="could not load the team notes", exit=2))})
    engine, transport = hook_engine([Reply(content=[text("a")])], hooks, [])
    out = await collect(engine, "hello")
    assert out.result.subtype == "success"
    assert any("could not load the team notes" in e.content for e in out.events if e.type == "system")
    assert "could not load" not in json.dumps(transport.requests[0]["messages"])


async def test_pre_compact_adds_summary_instructions_and_session_start_follows(hook_engine, scripts):
    hooks = settings_hooks(
        {
            "PreCompact": one(scripts.command("pre", stdout="Keep every file path mentioned."), matcher="manual"),
            "SessionStart": one(scripts.command("start", stdout="Reloaded: team notes"), matcher="compact"),
        }
    )
    engine, transport = hook_engine([Reply(content=[text("a")]), _summary(), Reply(content=[text("b")])], hooks, [])
    await collect(engine, "hello")
    result = await engine.compact("Focus on the churn model.")
    [pre] = scripts.inputs("pre")
    assert pre["trigger"] == "manual" and pre["custom_instructions"] == "Focus on the churn model."
    summary_request = json.dumps(transport.requests[1]["messages"])
    assert "Focus on the churn model." in summary_request and "Keep every file path mentioned." in summary_request
    [start] = scripts.inputs("start")
    assert start["source"] == "compact"
    assert any(getattr(m, "kind", "") == "hook_additional_context" and "Reloaded: team notes" in m.content for m in result.messages)
    await collect(engine, "next")
    after = json.dumps(transport.requests[2]["messages"])
    assert "SUMMARY" in after and "Reloaded: team notes" in after


async def test_pre_compact_continue_false_stops_the_compaction(hook_engine, scripts):
    stop = json.dumps({"continue": False, "stopReason": "compaction is disabled during the audit"})
    hooks = settings_hooks({"PreCompact": one(scripts.command("pre", stdout=stop))})
    engine, transport = hook_engine([Reply(content=[text("a")])], hooks, [])
    await collect(engine, "hello")
    before = list(engine.messages)
    with pytest.raises(CompactionError, match="compaction is disabled during the audit"):
        await engine.compact()
    assert engine.messages == before and len(transport.requests) == 1
