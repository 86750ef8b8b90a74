"""PermissionRequest hooks answer an ask on the user's behalf, and never more: a deny rule,
a protected path, an ask rule and the agent's questions stay out of their reach, also
when the hook rewrites the input or adds rules."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nb_agent.agent import create_engine
from nb_agent.engine import EngineConfig, EngineOptions
from nb_agent.hooks import HookInput, HookOutput
from nb_agent.model.retry import NO_RETRIES
from nb_agent.permissions.types import PermissionDeny
from nb_agent.testing import Reply, ScriptedTransport, text, tool_use
from nb_agent.testing.collect import assert_history_invariant, collect, tool_results_sent


class Recorder:
    """A Python PermissionRequest hook that answers with a fixed output and logs its inputs."""

    def __init__(self, output: HookOutput | None) -> None:
        self.output = output
        self.inputs: list[HookInput] = []

    async def __call__(self, hook_input: HookInput) -> HookOutput | None:
        self.inputs.append(hook_input)
        return self.output


def _engine(tmp_path: Path, turns, hook, *, approver=None, **kw):
    project, home = tmp_path / "project", tmp_path / "home"
    project.mkdir(exist_ok=True)
    home.mkdir(exist_ok=True)
    transport = ScriptedTransport(turns)
    config = EngineConfig(cwd=project, model="claude-sonnet-4-6", options=EngineOptions(retry_policy=NO_RETRIES))
    engine, _ = create_engine(config=config, transport=transport, home=home, agents=False, mcp=False, can_use_tool=approver, **kw)
    if hook is not None:
        engine.hooks.add("PermissionRequest", hook)
    return engine, transport, project, home


def _one(call) -> list[Reply]:
    return [Reply(content=[call]), Reply(content=[text("done")])]


async def test_a_hooks_allow_answers_an_ordinary_ask_and_it_sees_the_request(tmp_path) -> None:
    hook = Recorder(HookOutput(permission_decision="allow"))
    engine, transport, project, _ = _engine(tmp_path, _one(tool_use("Bash", {"command": "touch made.txt"}, id="t1")), hook)
    await collect(engine, "go")
    assert (project / "made.txt").exists(), "ran without an approver: the hook answered"
    [seen] = hook.inputs
    assert seen.tool_name == "Bash" and seen.tool_input == {"command": "touch made.txt"}
    assert seen.permission_suggestions == [
        {"type": "addRules", "rules": [{"toolName": "Bash", "ruleContent": "touch:*"}], "behavior": "allow", "destination": "session"}
    ]
    assert_history_invariant(engine.messages)


async def test_a_hooks_deny_refuses_and_interrupt_stops_the_run(tmp_path) -> None:
    hook = Recorder(HookOutput(permission_decision="deny", permission_decision_reason="not on Fridays", interrupt=True))
    turns = [Reply(content=[tool_use("Bash", {"command": "touch x"}, id="t1")]), Reply(content=[text("never")])]
    engine, transport, project, _ = _engine(tmp_path, turns, hook, approver=_never_asked)
    out = await collect(engine, "go")
    [result] = out.tool_results
    assert "A PermissionRequest hook denied Bash: not on Fridays" in result["content"]
    assert out.result.subtype == "interrupted" and not (project / "x").exists()
    assert len(transport.requests) == 1, "the run stopped: the model was not asked again"


async def _never_asked(tool, request, ctx):
    raise AssertionError(f"the user was asked about {request.tool_name}")


async def test_a_deny_rule_denies_before_any_hook_is_asked(tmp_path) -> None:
    hook = Recorder(HookOutput(permission_decision="allow"))
    engine, transport, project, _ = _engine(tmp_path, _one(tool_use("Bash", {"command": "touch x"}, id="t1")), hook, deny=["Bash(touch:*)"])
    await collect(engine, "go")
    assert hook.inputs == [] and not (project / "x").exists()
    assert "denied by the rule Bash(touch:*)" in _sent(transport)["t1"]["text"]


ONLY_THE_USER = {
    "a protected file": lambda p, h: tool_use("Write", {"file_path": str(h / ".bashrc"), "content": "evil"}, id="t1"),
    "agent configuration": lambda p, h: tool_use("Write", {"file_path": str(p / ".claude" / "settings.json"), "content": "{}"}, id="t1"),
    "outside the working directories": lambda p, h: tool_use("Write", {"file_path": str(h / "notes.txt"), "content": "x"}, id="t1"),
    "an ask rule": lambda p, h: tool_use("Bash", {"command": "echo hi"}, id="t1"),
    "a question for the user": lambda p, h: tool_use("AskUserQuestion", {"questions": [{"question": "Which?", "header": "Pick", "options": [{"label": "A", "description": "a"}, {"label": "B", "description": "b"}], "multiSelect": False}]}, id="t1"),
}


@pytest.mark.parametrize("case", ONLY_THE_USER)
@pytest.mark.parametrize("mode", ["default", "acceptEdits", "bypassPermissions"])
async def test_a_hooks_allow_never_answers_what_only_the_user_may(tmp_path, case, mode) -> None:
    asked: list[str] = []

    async def approver(tool, request, ctx):
        asked.append(request.tool_name)
        return PermissionDeny(message="the user said no")

    hook = Recorder(HookOutput(permission_decision="allow"))
    project, home = tmp_path / "project", tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    (home / ".claude" / "settings.json").write_text(json.dumps({"permissions": {"ask": ["Bash(echo:*)"]}}))
    call = ONLY_THE_USER[case](project, home)
    engine, transport, project, home = _engine(tmp_path, _one(call), hook, approver=approver, permission_mode=mode)
    out = await collect(engine, "go")
    assert asked == [call["name"]], "the user was asked, whatever the hook said"
    assert "the user said no" in _sent(transport)["t1"]["text"]
    assert not (home / ".bashrc").exists() and not (project / ".claude" / "settings.json").exists()
    assert any("only you can answer this request" in e.content for e in out.of_type("system")) or hook.inputs == []


REWRITES = {
    "to a denied command": ({"command": "rm -rf data"}, "denied by the rule Bash(rm:*)"),
    "to a protected file through a command": ({"command": "echo evil >> ~/.bashrc"}, "the user said no"),
}


@pytest.mark.parametrize("case", REWRITES)
async def test_a_rewritten_input_is_decided_again(tmp_path, case) -> None:
    updated, expected = REWRITES[case]
    asked: list[dict] = []

    async def approver(tool, request, ctx):
        asked.append(request.input)
        return PermissionDeny(message="the user said no")

    hook = Recorder(HookOutput(permission_decision="allow", updated_input=updated))
    engine, transport, project, home = _engine(
        tmp_path, _one(tool_use("Bash", {"command": "touch ok.txt"}, id="t1")), hook, approver=approver, deny=["Bash(rm:*)"]
    )
    (project / "data").mkdir()
    await collect(engine, "go")
    assert expected in _sent(transport)["t1"]["text"]
    assert (project / "data").exists() and not (home / ".bashrc").exists()
    assert asked in ([], [updated]), "only a user-only ask goes to the user, with the rewritten input"


async def test_a_harmless_rewrite_runs_the_rewritten_call(tmp_path) -> None:
    hook = Recorder(HookOutput(permission_decision="allow", updated_input={"command": "touch rewritten.txt"}))
    engine, transport, project, _ = _engine(tmp_path, _one(tool_use("Bash", {"command": "touch asked.txt"}, id="t1")), hook)
    await collect(engine, "go")
    assert (project / "rewritten.txt").exists() and not (project / "asked.txt").exists()


async def test_rules_a_hook_adds_are_session_rules_and_cannot_open_a_protected_path(tmp_path) -> None:
    adds = [{"type": "addRules", "rules": [{"toolName": "Bash", "ruleContent": "touch:*"}, {"toolName": "Write"}], "behavior": "allow"},
            {"type": "setMode", "mode": "bypassPermissions"}]  # fmt: skip
    hook = Recorder(HookOutput(permission_decision="allow", updated_permissions=adds))
    turns = [
        Reply(content=[tool_use("Bash", {"command": "touch one"}, id="t1")]),
        Reply(content=[tool_use("Bash", {"command": "touch two"}, id="t2")]),
        Reply(content=[tool_use("Write", {"file_path": str(tmp_path / "home" / ".bashrc"), "content": "evil"}, id="t3")]),
        Reply(content=[text("done")]),
    ]
    engine, transport, project, home = _engine(tmp_path, turns, hook)
    out = await collect(engine, "go")
    assert (project / "one").exists() and (project / "two").exists()
    assert len(hook.inputs) == 2, "the second touch ran under the added session rule; the .bashrc write asked again"
    assert engine.permission_policy.mode == "default", "setMode is not applied"
    assert not (home / ".bashrc").exists()
    assert any("'setMode' is not applied" in e.content for e in out.of_type("system"))


async def test_a_command_hook_in_claude_codes_shape(tmp_path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    script = tmp_path / "answer.py"
    script.write_text(
        "import json, sys\n"
        "event = json.load(sys.stdin)\n"
        "allow = event['tool_input']['command'].startswith('touch ')\n"
        "print(json.dumps({'hookSpecificOutput': {'hookEventName': 'PermissionRequest',"
        " 'decision': {'behavior': 'allow'} if allow else {'behavior': 'deny', 'message': 'only touch'}}}))\n"
    )
    settings = {"hooks": {"PermissionRequest": [{"matcher": "Bash", "hooks": [{"type": "command", "command": f"python3 {script}"}]}]}}
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(json.dumps(settings))
    turns = [Reply(content=[tool_use("Bash", {"command": "touch a"}, id="t1")]), Reply(content=[tool_use("Bash", {"command": "mkdir b"}, id="t2")]), Reply(content=[text("done")])]
    engine, transport, project, _ = _engine(tmp_path, turns, None, trust=True)
    await collect(engine, "go")
    assert (project / "a").exists() and not (project / "b").exists()
    assert "A PermissionRequest hook denied Bash: only touch" in _sent(transport)["t2"]["text"]


def _sent(transport) -> dict[str, dict]:
    return tool_results_sent(transport.requests)
