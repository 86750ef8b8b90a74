"""UserPromptSubmit command hooks: context for the model, refusing a prompt, input fields."""

from __future__ import annotations

import json
import time

from nb_agent.testing import Reply, text
from nb_agent.testing.collect import collect

from .conftest import one, settings_hooks


def _sent(transport) -> str:
    return json.dumps(transport.requests[0]["messages"])


def _notices(out, subtype=None):
    return [e.content for e in out.events if e.type == "system" and (subtype is None or e.subtype == subtype)]


async def test_plain_stdout_is_context_sent_with_the_prompt(tmp_path, hook_engine, scripts):
    hooks = settings_hooks({"UserPromptSubmit": one(scripts.command("ctx", stdout="Current branch: feature/churn\n"))})
    engine, transport = hook_engine([Reply(content=[text("ok")])], hooks, [])
    out = await collect(engine, "what changed?")
    assert out.result.subtype == "success"
    messages = transport.requests[0]["messages"]
    assert "what changed?" in json.dumps(messages[0]) or "what changed?" in json.dumps(messages)
    sent = _sent(transport)
    assert "Current branch: feature/churn" in sent
    assert sent.index("what changed?") < sent.index("Current branch: feature/churn"), "context follows the prompt"
    assert any("Current branch: feature/churn" in n for n in _notices(out, "hook_context"))
    [hook_input] = scripts.inputs("ctx")
    assert hook_input["hook_event_name"] == "UserPromptSubmit"
    assert hook_input["prompt"] == "what changed?"
    assert hook_input["session_id"] == engine.session_id
    assert hook_input["transcript_path"] == str(engine.transcript_path)
    assert hook_input["cwd"] == str(tmp_path) == hook_input["_process_cwd"]
    assert hook_input["permission_mode"] == "default"
    assert "tool_name" not in hook_input and "stop_hook_active" not in hook_input


async def test_json_additional_context_and_suppress_output(hook_engine, scripts):
    payload = {"suppressOutput": True, "hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "The user's team is 'data-eng'."}}
    hooks = settings_hooks({"UserPromptSubmit": one(scripts.command("ctx", stdout=json.dumps(payload)))})
    engine, transport = hook_engine([Reply(content=[text("ok")])], hooks, [])
    out = await collect(engine, "hi")
    assert "The user's team is 'data-eng'." in _sent(transport)
    assert _notices(out, "hook_context") == [], "suppressOutput hides it from the cell, not from the model"
    assert any(getattr(m, "kind", "") == "hook_additional_context" for m in engine.messages)


async def _refused(hook_engine, hooks, prompt="deploy to prod"):
    engine, transport = hook_engine([Reply(content=[text("should never be asked")])], hooks, [])
    before = list(engine.messages)
    out = await collect(engine, prompt)
    assert transport.requests == [], "nothing is sent to the model"
    assert engine.messages == before, "the prompt is not added to the conversation"
    assert out.result.subtype == "prompt_blocked" and not out.result.is_error
    transcript = engine.transcript_path.read_text() if engine.transcript_path.exists() else ""
    assert prompt not in transcript
    return engine, out


async def test_decision_block_refuses_the_prompt_and_says_why(hook_engine, scripts):
    block = json.dumps({"decision": "block", "reason": "Prompts mentioning prod need a ticket number."})
    hooks = settings_hooks({"UserPromptSubmit": one(scripts.command("gate", stdout=block))})
    engine, out = await _refused(hook_engine, hooks)
    [notice] = _notices(out, "prompt_blocked")
    assert "Prompts mentioning prod need a ticket number." in notice and "nothing was sent" in notice


async def test_exit_2_refuses_with_stderr_as_the_reason(hook_engine, scripts):
    hooks = settings_hooks({"UserPromptSubmit": one(scripts.command("gate", stderr="secret key pasted; refusing", exit=2))})
    _, out = await _refused(hook_engine, hooks, prompt="my key is sk-123")
    assert any("secret key pasted; refusing" in n for n in _notices(out, "prompt_blocked"))


async def test_continue_false_refuses_with_the_stop_reason(hook_engine, scripts):
    stop = json.dumps({"continue": False, "stopReason": "Outside working hours.", "systemMessage": "see the policy"})
    hooks = settings_hooks({"UserPromptSubmit": one(scripts.command("gate", stdout=stop))})
    _, out = await _refused(hook_engine, hooks)
    assert any("Outside working hours." in n for n in _notices(out, "prompt_blocked"))
    assert "see the policy" in _notices(out, "hook")


async def test_a_refused_prompt_leaves_the_next_one_working(hook_engine, scripts):
    gate = scripts.root / "gate.sh"
    gate.write_text('#!/bin/bash\ngrep -q prod && { echo "no prod" >&2; exit 2; }\nexit 0\n')
    gate.chmod(0o755)
    hooks = settings_hooks({"UserPromptSubmit": one(str(gate))})
    engine, transport = hook_engine([Reply(content=[text("fine")])], hooks, [])
    first = await collect(engine, "prod please")
    second = await collect(engine, "staging please")
    assert first.result.subtype == "prompt_blocked" and second.result.subtype == "success"
    assert len(transport.requests) == 1 and "prod please" not in _sent(transport)


async def test_invalid_json_and_a_hanging_hook_do_not_block(hook_engine, scripts):
    hooks = settings_hooks(
        {
            "UserPromptSubmit": [
                {"hooks": [{"type": "command", "command": scripts.command("bad", stdout="{not json")}]},
                {"hooks": [{"type": "command", "command": scripts.command("slow", sleep=100), "timeout": 1}]},
            ]
        }
    )
    engine, transport = hook_engine([Reply(content=[text("ok")])], hooks, [])
    started = time.monotonic()
    out = await collect(engine, "hello")
    # Generous: only separates "waited for the hook's 100 s sleep" from "did not" (shared machines).
    assert time.monotonic() - started < 20
    assert out.result.subtype == "success" and len(transport.requests) == 1
    warnings = [e.content for e in out.events if e.type == "system" and e.level == "warning"]
    assert any("invalid JSON" in w and "UserPromptSubmit" in w for w in warnings)
    assert any("timed out after 1s" in w for w in warnings)
    assert "{not json" not in _sent(transport)


async def test_50_kb_of_context_is_saved_to_a_file_with_a_preview(hook_engine, scripts):
    big = "".join(f"line {i:05d} of the generated project map\n" for i in range(1300))
    assert len(big) > 50_000
    hooks = settings_hooks({"UserPromptSubmit": one(scripts.command("big", stdout=big))})
    engine, transport = hook_engine([Reply(content=[text("ok")])], hooks, [])
    await collect(engine, "map the project")
    sent = _sent(transport)
    assert "line 00000" in sent and "line 01299" not in sent, "a preview, not all of it"
    assert "Full output saved to:" in sent
    saved = list((engine.session_dir / "tool-results").glob("hook-UserPromptSubmit-*.txt"))
    assert len(saved) == 1 and saved[0].read_text() == big.strip()
