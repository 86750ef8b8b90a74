"""The ``prompt`` and ``http`` hook types from a settings file, through real engines: a
prompt hook asks the small model (through the session's client, counted in the cost), an
http hook POSTs the event to a local server and reads its answer."""

from __future__ import annotations

import json
from pathlib import Path

from nb_agent.agent import create_engine
from nb_agent.engine import EngineConfig, EngineOptions
from nb_agent.model.model_ids import small_fast_model
from nb_agent.model.retry import NO_RETRIES
from nb_agent.testing import Reply, ScriptedTransport, text, tool_use
from nb_agent.testing.collect import assert_history_invariant, collect
from nb_agent.testing.web_server import LocalWebServer, Page


def _engine(tmp_path: Path, turns, hooks: dict, *, env: dict | None = None):
    project, home = tmp_path / "project", tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    project.mkdir()
    (home / ".claude" / "settings.json").write_text(json.dumps({"hooks": hooks}))  # the user's own hooks
    transport = ScriptedTransport(turns)
    config = EngineConfig(cwd=project, model="claude-sonnet-4-6", options=EngineOptions(retry_policy=NO_RETRIES))
    engine, warnings = create_engine(config=config, transport=transport, home=home, agents=False, mcp=False)
    assert warnings == [], warnings
    return engine, transport, project


def _hook(kind: str, **fields) -> list[dict]:
    return [{"hooks": [{"type": kind, **fields}]}]


async def test_a_stop_prompt_hook_sends_the_agent_back_until_the_model_says_ok(tmp_path) -> None:
    turns = [
        Reply(content=[text("All done.")]),
        Reply(content=[text('{"ok": false, "reason": "You did not run the tests."}')]),  # the hook's side call
        Reply(content=[text("Ran the tests: all pass.")]),
        Reply(content=[text('{"ok": true}')]),
    ]
    hooks = {"Stop": _hook("prompt", prompt="Has the agent run the tests? Event: $ARGUMENTS")}
    engine, transport, _ = _engine(tmp_path, turns, hooks)
    out = await collect(engine, "fix the bug")
    assert out.result.text == "Ran the tests: all pass."
    judge = transport.requests[1]
    assert judge["model"] == small_fast_model() and "stream" not in judge
    asked = judge["messages"][0]["content"]
    assert asked.startswith("Has the agent run the tests? Event: {") and '"hook_event_name": "Stop"' in asked
    assert '"stop_hook_active": true' in transport.requests[3]["messages"][0]["content"]
    assert "You did not run the tests." in json.dumps(transport.requests[2]["messages"])
    assert engine.usage.total.input_tokens == 100 * len(transport.requests) == 400, "the hook's calls are counted in the cost"
    assert_history_invariant(engine.messages)


async def test_a_prompt_hook_that_answers_nonsense_is_a_warning(tmp_path) -> None:
    turns = [Reply(content=[tool_use("Bash", {"command": "echo hi"}, id="t1")]), Reply(content=[text("no json here")]), Reply(content=[text("done")])]
    engine, transport, _ = _engine(tmp_path, turns, {"PreToolUse": _hook("prompt", prompt="Is this safe?")})
    out = await collect(engine, "go")
    assert any("did not answer" in e.content for e in out.of_type("system"))
    assert not out.tool_results[0].get("is_error"), "a broken hook changes nothing"


async def test_a_permission_request_prompt_hook_can_allow_what_a_hook_may(tmp_path) -> None:
    turns = [Reply(content=[tool_use("Bash", {"command": "touch approved.txt"}, id="t1")]), Reply(content=[text('{"ok": true}')]), Reply(content=[text("done")])]
    engine, _, project = _engine(tmp_path, turns, {"PermissionRequest": _hook("prompt", prompt="Allow harmless commands.", model="claude-haiku-4-5")})
    await collect(engine, "go")
    assert (project / "approved.txt").exists()


async def test_an_http_hook_gets_the_event_and_its_answer_applies(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("HOOK_TOKEN", "s3cret")
    monkeypatch.setenv("OTHER_SECRET", "must-not-leave")
    deny = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "policy says no"}}
    with LocalWebServer({"/hook": Page(content_type="application/json", body=json.dumps(deny))}) as web:
        headers = {"Authorization": "Bearer $HOOK_TOKEN", "X-Other": "${OTHER_SECRET}"}
        hooks = {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "http", "url": web.url("/hook"), "headers": headers, "allowedEnvVars": ["HOOK_TOKEN"]}]}]}
        turns = [Reply(content=[tool_use("Bash", {"command": "touch x"}, id="t1")]), Reply(content=[text("done")])]
        engine, _, project = _engine(tmp_path, turns, hooks)
        out = await collect(engine, "go")
        [posted] = web.requests
    assert posted["method"] == "POST" and json.loads(posted["body"])["tool_input"] == {"command": "touch x"}
    assert posted["headers"]["Authorization"] == "Bearer s3cret"
    assert posted["headers"]["X-Other"] == "", "a variable allowedEnvVars does not name is not sent"
    assert "policy says no" in out.tool_results[0]["content"] and not (project / "x").exists()


async def test_an_http_hook_that_fails_or_redirects_changes_nothing(tmp_path) -> None:
    pages = {"/down": Page(status=503, body="down"), "/moved": Page(status=302, headers={"Location": "/elsewhere"}, body="")}
    with LocalWebServer(pages) as web:
        hooks = {"PreToolUse": [{"hooks": [{"type": "http", "url": web.url("/down")}, {"type": "http", "url": web.url("/moved")}]}]}
        turns = [Reply(content=[tool_use("Bash", {"command": "echo hi"}, id="t1")]), Reply(content=[text("done")])]
        engine, _, _ = _engine(tmp_path, turns, hooks)
        out = await collect(engine, "go")
        paths = [r["path"] for r in web.requests]
    warnings = [e.content for e in out.of_type("system") if e.level == "warning"]
    assert any("answered 503" in w for w in warnings) and any("answered 302" in w for w in warnings)
    assert "/elsewhere" not in paths, "redirects are not followed"
    assert not out.tool_results[0].get("is_error")
