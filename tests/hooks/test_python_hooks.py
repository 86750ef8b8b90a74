"""Python hooks: PreToolUse, PostToolUse and Stop, through the engine."""

from __future__ import annotations

import asyncio

from nb_agent.hooks import HookOutput, Hooks
from nb_agent.testing import Reply, text, tool_use
from nb_agent.testing.collect import assert_history_invariant, assert_tool_result_invariant, collect
from nb_agent.testing.tools import RecordingTool


def _turns(*calls):
    return [Reply(content=list(calls)), Reply(content=[text("ok")])]


async def test_pre_tool_use_sees_the_call_and_can_deny_it(hook_engine):
    seen = []

    async def pre(hook_input):
        seen.append(hook_input)
        if hook_input.tool_input["value"] == "secret":
            return HookOutput(permission_decision="deny", permission_decision_reason="secrets are off limits")
        return None

    hooks = Hooks()
    hooks.add("PreToolUse", pre, matcher="Echo")
    echo = RecordingTool("Echo", concurrency_safe=False)
    calls = [tool_use("Echo", {"value": "fine"}), tool_use("Echo", {"value": "secret"})]
    engine, transport = hook_engine(_turns(*calls), hooks, [echo])
    out = await collect(engine, "go")
    assert [c.value for c in echo.calls] == ["fine"]
    assert [(i.hook_event_name, i.tool_name, i.tool_use_id) for i in seen] == [("PreToolUse", "Echo", c["id"]) for c in calls]
    assert seen[0].session_id == engine.session_id and seen[0].transcript_path == str(engine.transcript_path)
    denied = out.tool_results[1]
    assert denied["is_error"] and "secrets are off limits" in denied["content"]
    assert [d.tool_use_id for d in engine.permission_denials] == [calls[1]["id"]]
    assert_tool_result_invariant(transport.requests[1]["messages"])


async def test_pre_tool_use_rewrites_input_and_adds_context(hook_engine):
    async def pre(hook_input):
        return HookOutput(
            updated_input={**hook_input.tool_input, "value": "rewritten"},
            additional_context="remember: values are rewritten",
            system_message="a hook rewrote the call",
        )

    hooks = Hooks()
    hooks.add("PreToolUse", pre)
    echo = RecordingTool("Echo")
    engine, transport = hook_engine(_turns(tool_use("Echo", {"value": "original"})), hooks, [echo])
    out = await collect(engine, "go")
    assert [c.value for c in echo.calls] == ["rewritten"]
    assert out.tool_results[0]["content"] == "Echo: rewritten"
    assert any(e.type == "system" and e.content == "a hook rewrote the call" for e in out.events)
    last_user = transport.requests[1]["messages"][-1]
    assert last_user["content"][0]["type"] == "tool_result"
    assert any("remember: values are rewritten" in b.get("text", "") for b in last_user["content"])


async def test_pre_tool_use_allow_skips_the_permission_prompt(hook_engine):
    from nb_agent.permissions.types import PermissionAsk, PermissionPolicy

    class AskAlways(PermissionPolicy):
        async def decide(self, tool, input, ctx):
            return PermissionAsk(message="?")

    async def pre(hook_input):
        return HookOutput(permission_decision="allow")

    hooks = Hooks()
    hooks.add("PreToolUse", pre)
    echo = RecordingTool("Echo")
    engine, _ = hook_engine(_turns(tool_use("Echo", {"value": "x"})), hooks, [echo], permission_policy=AskAlways())
    await collect(engine, "go")
    assert [c.value for c in echo.calls] == ["x"]


class McpEcho(RecordingTool):
    is_mcp = True


async def test_post_tool_use_replaces_an_mcp_tools_output_and_feeds_back_a_blocking_error(hook_engine):
    seen = []

    async def post(hook_input):
        seen.append(hook_input)
        return HookOutput(updated_output="[redacted]", blocking_error="the output contained a token")

    hooks = Hooks()
    hooks.add("PostToolUse", post)
    tool = McpEcho("mcp__vault__echo")
    engine, transport = hook_engine(_turns(tool_use("mcp__vault__echo", {"value": "tok_123"})), hooks, [tool])
    out = await collect(engine, "go")
    assert seen[0].tool_response == "mcp__vault__echo: tok_123"
    assert out.tool_results[0]["content"] == "[redacted]"
    request_text = str(transport.requests[1]["messages"][-1])
    assert "the output contained a token" in request_text
    assert_history_invariant(engine.messages)


async def test_updated_mcp_tool_output_leaves_a_built_in_tools_output_alone(hook_engine):
    """Audit defect 6: ``updatedMCPToolOutput`` is for MCP tools only (Claude Code's rule)."""

    async def post(hook_input):
        return HookOutput(updated_output="[replaced]")

    hooks = Hooks()
    hooks.add("PostToolUse", post)
    engine, _ = hook_engine(_turns(tool_use("Echo", {"value": "real output"})), hooks, [RecordingTool("Echo")])
    out = await collect(engine, "go")
    assert out.tool_results[0]["content"] == "Echo: real output"


async def test_a_failing_or_slow_python_hook_is_a_warning(hook_engine):
    async def broken(hook_input):
        raise ValueError("bug in my hook")

    async def slow(hook_input):
        await asyncio.sleep(10)

    hooks = Hooks()
    hooks.add("PreToolUse", broken)
    hooks.add("PreToolUse", slow, timeout=0.1)
    echo = RecordingTool("Echo")
    engine, _ = hook_engine(_turns(tool_use("Echo", {"value": "x"})), hooks, [echo])
    out = await collect(engine, "go")
    assert [c.value for c in echo.calls] == ["x"]
    warnings = [e.content for e in out.events if e.type == "system" and e.level == "warning"]
    assert any("ValueError: bug in my hook" in w for w in warnings)
    assert any("timed out" in w for w in warnings)


async def test_stop_hook_input_and_blocking(hook_engine):
    seen = []

    async def stop(hook_input):
        seen.append(hook_input)
        if not hook_input.stop_hook_active:
            return HookOutput(blocking_error="run the tests first")
        return None

    hooks = Hooks()
    hooks.add("Stop", stop)
    engine, transport = hook_engine([Reply(content=[text("done")]), Reply(content=[text("tests pass")])], hooks, [])
    out = await collect(engine, "go")
    assert out.result.subtype == "success" and out.result.text == "tests pass"
    assert [i.stop_hook_active for i in seen] == [False, True]
    assert seen[0].hook_event_name == "Stop" and seen[0].tool_name is None
    assert "run the tests first" in str(transport.requests[1]["messages"][-1])


async def test_every_event_can_be_added_from_python_and_unknown_ones_are_refused(hook_engine):
    import pytest

    from nb_agent.errors import ConfigurationError
    from nb_agent.hooks.types import HOOK_EVENTS

    seen: list[str] = []

    async def record(hook_input):
        seen.append(hook_input.hook_event_name)
        if hook_input.hook_event_name == "UserPromptSubmit":
            return HookOutput(additional_context="from python")
        return None

    hooks = Hooks()
    for event in HOOK_EVENTS:
        hooks.add(event, record)
    with pytest.raises(ConfigurationError, match="PostCompact"):
        hooks.add("PostCompact", record)  # type: ignore[arg-type]
    engine, transport = hook_engine(_turns(tool_use("Echo", {"value": "x"})), hooks, [RecordingTool("Echo")])
    await collect(engine, "go")
    await engine.end_session("other")
    assert seen == ["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SessionEnd"]
    assert "from python" in str(transport.requests[0]["messages"])
    assert {info.source for info in hooks.describe()} == {"python"} and len(hooks.describe()) == len(HOOK_EVENTS)


def test_unsupported_events_and_hook_types_are_named_once_per_file():
    section = {
        "PostCompact": [{"hooks": [{"type": "command", "command": "true"}]}] * 2,
        "Stop": [
            {"hooks": [{"type": "agent", "prompt": "Are all tasks done?"}, {"type": "agent", "prompt": "again"}]},
            {"hooks": [{"type": "command", "command": "true"}]},
        ],
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "http", "url": "file:///etc/passwd"}]}],
    }
    hooks, warnings = Hooks.from_settings(section, source="project", path="/repo/.claude/settings.json")
    assert len(warnings) == 3
    assert any("'PostCompact' is not supported" in w for w in warnings)
    assert any("hooks.Stop" in w and "'agent' is not supported" in w for w in warnings)
    assert any("hooks.PreToolUse" in w and "needs an http(s) URL" in w for w in warnings)
    assert all(w.startswith("/repo/.claude/settings.json") for w in warnings)
    [info] = hooks.describe()
    assert (info.event, info.source, info.path, info.description) == ("Stop", "project", "/repo/.claude/settings.json", "true")