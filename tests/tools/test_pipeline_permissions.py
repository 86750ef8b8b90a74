"""The permission step: policy → interactive callback; allow, rewrite, deny, always allow."""

from __future__ import annotations

import json
from pathlib import Path

from nb_agent.engine import EngineConfig, QueryEngine
from nb_agent.permissions.types import PermissionAllow, PermissionAsk, PermissionDeny, PermissionPolicy
from nb_agent.testing import Reply, ScriptedTransport, text, tool_use
from nb_agent.testing.collect import assert_history_invariant, assert_tool_result_invariant, collect
from nb_agent.testing.tools import RecordingTool


class AskPolicy(PermissionPolicy):
    """Asks about every call; remembers the session rules it is given."""

    def __init__(self) -> None:
        self.rules: list[tuple[str, str]] = []

    async def decide(self, tool, input, ctx):
        return PermissionAsk(message=f"Allow {tool.name}?", suggested_rule=f"{tool.name}({input.value})")

    def add_session_rule(self, behavior, rule):
        self.rules.append((behavior, rule))


def _engine(tmp_path: Path, turns, *, can_use_tool=None, policy=None, tool=None):
    tool = tool or RecordingTool("Echo", concurrency_safe=False)
    transport = ScriptedTransport(turns)
    engine = QueryEngine(
        config=EngineConfig(cwd=tmp_path),
        tools=[tool],
        transport=transport,
        permission_policy=policy or AskPolicy(),
        can_use_tool=can_use_tool,
    )
    return engine, transport, tool


def _transcript(engine) -> list[dict]:
    return [json.loads(line) for line in engine.transcript_path.read_text().splitlines()]


async def test_every_call_is_asked_and_each_answer_is_applied(tmp_path):
    requests = []

    async def can_use_tool(tool, request, ctx):
        requests.append(request)
        value = request.input["value"]
        if value == "rewrite":
            return PermissionAllow(updated_input={"value": "rewritten"})
        if value == "deny":
            return PermissionDeny(message="No: use the other file")
        if value == "always":
            return PermissionAllow(rule_to_add="Echo(always)")
        return PermissionAllow()

    calls = [tool_use("Echo", {"value": v}) for v in ("allow", "rewrite", "deny", "always")]
    policy = AskPolicy()
    engine, transport, tool = _engine(
        tmp_path, [Reply(content=calls), Reply(content=[text("ok")])], can_use_tool=can_use_tool, policy=policy
    )
    out = await collect(engine, "go")
    assert out.result.subtype == "success"
    assert [r.input["value"] for r in requests] == ["allow", "rewrite", "deny", "always"]
    assert requests[0].message == "Allow Echo?" and requests[0].suggested_rule == "Echo(allow)"
    assert [c.value for c in tool.calls] == ["allow", "rewritten", "always"]
    contents = [r["content"] for r in out.tool_results]
    assert contents[:2] == ["Echo: allow", "Echo: rewritten"]
    assert out.tool_results[2]["is_error"] and "No: use the other file" in contents[2]
    assert contents[3] == "Echo: always"
    assert policy.rules == [("allow", "Echo(always)")]

    [denial] = engine.permission_denials
    assert (denial.tool_name, denial.tool_use_id, denial.message) == ("Echo", calls[2]["id"], "No: use the other file")
    assert out.result.permission_denials == [denial]
    entries = _transcript(engine)
    assert [e["tool_use_id"] for e in entries if e["kind"] == "permission_denial"] == [calls[2]["id"]]
    decisions = [(e["decision"], e["detail"]) for e in entries if e["kind"] == "permission_decision"]
    assert decisions == [("allow", ""), ("allow", ""), ("deny", "No: use the other file"), ("always_allow", "Echo(always)")]
    assert_history_invariant(engine.messages)
    assert_tool_result_invariant(transport.requests[1]["messages"])


async def test_without_an_approver_an_ask_is_a_denial(tmp_path):
    engine, _, tool = _engine(tmp_path, [Reply(content=[tool_use("Echo", {"value": "x"})]), Reply(content=[text("ok")])])
    out = await collect(engine, "go")
    assert tool.calls == []
    [result] = out.tool_results
    assert result["is_error"] and "no approver is connected" in result["content"]
    assert len(engine.permission_denials) == 1


async def test_policy_deny_never_reaches_the_approver(tmp_path):
    class DenyAll(PermissionPolicy):
        async def decide(self, tool, input, ctx):
            return PermissionDeny(message="Echo is disabled by a deny rule")

    asked = []

    async def can_use_tool(tool, request, ctx):
        asked.append(request)
        return PermissionAllow()

    engine, _, tool = _engine(
        tmp_path, [Reply(content=[tool_use("Echo", {"value": "x"})]), Reply(content=[text("ok")])], can_use_tool=can_use_tool, policy=DenyAll()
    )
    out = await collect(engine, "go")
    assert asked == [] and tool.calls == []
    assert "Echo is disabled by a deny rule" in out.tool_results[0]["content"]


async def test_deny_with_interrupt_stops_the_run(tmp_path):
    async def can_use_tool(tool, request, ctx):
        return PermissionDeny(message="Stopped by the user", interrupt=True)

    engine, transport, tool = _engine(
        tmp_path, [Reply(content=[tool_use("Echo", {"value": "a"}), tool_use("Echo", {"value": "b"})])], can_use_tool=can_use_tool
    )
    out = await collect(engine, "go")
    assert out.result.subtype == "interrupted" and out.result.terminal_reason == "aborted_tools"
    assert tool.calls == []
    assert len(out.tool_results) == 2
    assert_history_invariant(engine.messages)
    assert len(transport.requests) == 1


async def test_always_allow_with_a_policy_that_keeps_no_rules(tmp_path):
    class AskOnly(PermissionPolicy):
        async def decide(self, tool, input, ctx):
            return PermissionAsk(message="?")

    async def can_use_tool(tool, request, ctx):
        return PermissionAllow(rule_to_add="Echo")

    engine, _, tool = _engine(
        tmp_path, [Reply(content=[tool_use("Echo", {"value": "x"})]), Reply(content=[text("ok")])], can_use_tool=can_use_tool, policy=AskOnly()
    )
    out = await collect(engine, "go")
    assert out.result.subtype == "success"
    assert [c.value for c in tool.calls] == ["x"]
