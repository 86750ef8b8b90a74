"""PostToolUseFailure, Notification and SubagentStop command hooks; output fields on tool events."""

from __future__ import annotations

import asyncio
import json

from nb_agent.abort import AbortController
from nb_agent.errors import ToolError
from nb_agent.hooks.types import SubagentInfo
from nb_agent.loop.pipeline import ToolRunDeps
from nb_agent.loop.query import query
from nb_agent.loop.state import QueryDeps, QueryParams
from nb_agent.messages import UserMessage
from nb_agent.permissions.types import PermissionAllow, PermissionAsk, PermissionPolicy
from nb_agent.testing import Reply, ScriptedTransport, text, tool_use
from nb_agent.testing.collect import assert_tool_result_invariant, collect
from nb_agent.testing.tools import FunctionTool, RecordingTool
from nb_agent.tools.base import ToolSession, ToolUseContext
from nb_agent.tools.services import ToolServices

from .conftest import one, settings_hooks


def _turns(*calls):
    return [Reply(content=list(calls)), Reply(content=[text("ok")])]


def _failing_tool() -> FunctionTool:
    from pydantic import BaseModel

    class In(BaseModel):
        path: str

    async def run(inp, ctx):
        raise ToolError(f"{inp.path}: no such file")

    return FunctionTool("Open", run, In)


async def test_post_tool_use_failure_gets_the_error_and_adds_context(hook_engine, scripts):
    reply = json.dumps({"hookSpecificOutput": {"hookEventName": "PostToolUseFailure", "additionalContext": "Data files live in data/raw/."}})
    hooks = settings_hooks(
        {
            "PostToolUseFailure": one(scripts.command("fail", stdout=reply), matcher="Open"),
            "PostToolUse": one(scripts.command("post")),
        }
    )
    call = tool_use("Open", {"path": "sales.csv"})
    engine, transport = hook_engine(_turns(call), hooks, [_failing_tool()])
    out = await collect(engine, "open it")
    assert out.tool_results[0]["is_error"]
    [failure] = scripts.inputs("fail")
    assert failure["hook_event_name"] == "PostToolUseFailure"
    assert failure["tool_name"] == "Open" and failure["tool_input"] == {"path": "sales.csv"} and failure["tool_use_id"] == call["id"]
    assert failure["error"] == "sales.csv: no such file" and failure["is_interrupt"] is False
    assert "tool_response" not in failure
    assert scripts.inputs("post") == [], "PostToolUse is for successes"
    follow_up = json.dumps(transport.requests[1]["messages"])
    assert "Data files live in data/raw/." in follow_up
    assert_tool_result_invariant(transport.requests[1]["messages"])


async def test_post_tool_use_failure_exit_2_feeds_stderr_to_the_model(hook_engine, scripts):
    hooks = settings_hooks({"PostToolUseFailure": one(scripts.command("fail", stderr="Try the path relative to data/.", exit=2))})
    engine, transport = hook_engine(_turns(tool_use("Open", {"path": "x"})), hooks, [_failing_tool()])
    await collect(engine, "go")
    assert "Try the path relative to data/." in json.dumps(transport.requests[1]["messages"])


async def test_post_tool_use_json_fields(hook_engine, scripts):
    reply = json.dumps(
        {
            "decision": "block",
            "reason": "Lint failed: line too long",
            "systemMessage": "formatter ran",
            "hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "Style: 100 columns."},
        }
    )
    hooks = settings_hooks({"PostToolUse": one(scripts.command("post", stdout=reply), matcher="Echo")})
    engine, transport = hook_engine(_turns(tool_use("Echo", {"value": "v"})), hooks, [RecordingTool("Echo")])
    out = await collect(engine, "go")
    [post] = scripts.inputs("post")
    assert post["tool_response"] == "Echo: v" and post["permission_mode"] == "default"
    follow_up = json.dumps(transport.requests[1]["messages"])
    assert "Lint failed: line too long" in follow_up and "Style: 100 columns." in follow_up
    assert any(e.type == "system" and e.content == "formatter ran" for e in out.events)


async def test_pre_tool_use_updated_input_and_context_from_a_command(hook_engine, scripts):
    reply = json.dumps(
        {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "allow",
                "permissionDecisionReason": "echo is harmless",
                "updatedInput": {"value": "normalized"},
                "additionalContext": "Inputs are normalized by policy.",
            }
        }
    )
    hooks = settings_hooks({"PreToolUse": one(scripts.command("pre", stdout=reply), matcher="Echo|Other")})
    echo = RecordingTool("Echo")
    engine, transport = hook_engine(_turns(tool_use("Echo", {"value": "raw"})), hooks, [echo])
    await collect(engine, "go")
    assert [c.value for c in echo.calls] == ["normalized"]
    assert "Inputs are normalized by policy." in json.dumps(transport.requests[1]["messages"])


async def test_post_tool_use_continue_false_stops_after_the_tool(hook_engine, scripts):
    hooks = settings_hooks({"PostToolUse": one(scripts.command("post", stdout=json.dumps({"continue": False, "stopReason": "budget"})))})
    engine, transport = hook_engine(_turns(tool_use("Echo", {"value": "v"})), hooks, [RecordingTool("Echo")])
    out = await collect(engine, "go")
    assert out.result.terminal_reason == "hook_stopped" and len(transport.requests) == 1


class _AskAlways(PermissionPolicy):
    async def decide(self, tool, input, ctx):
        return PermissionAsk(message="?")


async def test_notification_fires_when_the_user_is_asked(hook_engine, scripts):
    hooks = settings_hooks({"Notification": one(scripts.command("notify"), matcher="permission_prompt")})
    answered = asyncio.Event()

    async def approver(tool, request, ctx):
        # the notifier runs while the question is open; the answer does not wait for it
        for _ in range(200):
            if scripts.inputs("notify"):
                break
            await asyncio.sleep(0.02)
        answered.set()
        return PermissionAllow()

    echo = RecordingTool("Echo")
    engine, _ = hook_engine(_turns(tool_use("Echo", {"value": "x"})), hooks, [echo], permission_policy=_AskAlways(), can_use_tool=approver)
    await collect(engine, "go")
    await engine.background_hooks.wait(5)
    [note] = scripts.inputs("notify")
    assert note["notification_type"] == "permission_prompt" and "Echo" in note["message"]
    assert note["session_id"] == engine.session_id and answered.is_set()


async def test_notification_when_a_long_run_ends(hook_engine, scripts):
    hooks = settings_hooks({"Notification": one(scripts.command("notify", exit=3), matcher="idle_prompt")})
    engine, _ = hook_engine([Reply(content=[text("done")]), Reply(content=[text("again")])], hooks, [])
    engine.config.options.notify_after_s = 0
    await collect(engine, "go")
    await engine.background_hooks.wait(5)
    [note] = scripts.inputs("notify")
    assert note["notification_type"] == "idle_prompt" and note["hook_event_name"] == "Notification"
    later = await collect(engine, "more")
    assert any("exited with 3" in e.content for e in later.events if e.type == "system"), "a failed notifier is reported, late"


async def test_short_runs_do_not_notify(hook_engine, scripts):
    hooks = settings_hooks({"Notification": one(scripts.command("notify"))})
    engine, _ = hook_engine([Reply(content=[text("done")])], hooks, [])
    await collect(engine, "go")
    await engine.background_hooks.wait(5)
    assert scripts.inputs("notify") == []


async def _subagent_loop(tmp_path, hooks, turns):
    transport = ScriptedTransport(turns)
    ctx = ToolUseContext(
        abort_controller=AbortController(),
        tools=[],
        session=ToolSession(cwd=tmp_path),
        session_id="parent-session",
        services=ToolServices(transcript_path="/parent.jsonl"),
    )
    params = QueryParams(
        messages=[UserMessage(content="find the churn labels")],
        tool_use_context=ctx,
        tool_run_deps=ToolRunDeps(hooks=hooks),
        query_source="agent:Explore",
        subagent=SubagentInfo(agent_id="a1", agent_type="Explore", agent_transcript_path="/agent-a1.jsonl"),
    )

    async def call_model(request):
        from nb_agent.model.client import stream_response

        async for item in stream_response(transport, request):
            yield item

    events = [e async for e in query(params, QueryDeps(call_model=call_model))]
    return events, transport


async def test_subagent_stop_replaces_stop_in_a_subagent_loop_and_can_block(tmp_path, scripts):
    gate = scripts.root / "gate.py"
    gate.write_text(
        "import json, sys\n"
        "data = json.load(sys.stdin)\n"
        f"open({str(scripts.log('sub'))!r}, 'a').write(json.dumps(data) + '\\n')\n"
        "if not data['stop_hook_active']:\n"
        "    print(json.dumps({'decision': 'block', 'reason': 'Name the file the labels come from.'}))\n"
    )
    import sys

    hooks = settings_hooks({"SubagentStop": one(f"{sys.executable} {gate}", matcher="Explore"), "Stop": one(scripts.command("stop"))})
    events, transport = await _subagent_loop(tmp_path, hooks, [Reply(content=[text("somewhere")]), Reply(content=[text("labels.py")])])
    assert events[-1].reason == "completed"
    inputs = scripts.inputs("sub")
    assert [i["stop_hook_active"] for i in inputs] == [False, True]
    first = inputs[0]
    assert (first["hook_event_name"], first["agent_id"], first["agent_type"]) == ("SubagentStop", "a1", "Explore")
    assert first["agent_transcript_path"] == "/agent-a1.jsonl" and first["last_assistant_message"] == "somewhere"
    assert first["session_id"] == "parent-session" and first["transcript_path"] == "/parent.jsonl"
    assert "SubagentStop hook feedback:\\nName the file the labels come from." in json.dumps(transport.requests[1]["messages"])
    assert scripts.inputs("stop") == [], "a subagent never runs Stop hooks"
