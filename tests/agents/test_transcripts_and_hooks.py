"""Sidechain transcripts linked to the parent (also after resume), approvals that name the
agent, the SubagentStop hook."""

from __future__ import annotations

import json

from nb_agent.agents.sidechain import linked_subagents
from nb_agent.engine import EngineConfig, QueryEngine
from nb_agent.hooks.types import HookOutput
from nb_agent.permissions.types import PermissionAllow
from nb_agent.testing import Reply, ScriptedTransport, text, tool_use
from nb_agent.testing.collect import collect
from nb_agent.testing.tools import RecordingTool


def agent_call(tag: str, kind: str = "general-purpose", id: str | None = None):
    return tool_use("Agent", {"description": f"task {tag}", "prompt": f"[{tag}] work", "subagent_type": kind}, id=id)


async def test_each_subagent_has_a_sidechain_transcript_linked_to_its_call(make_agent_engine):
    engine, script = make_agent_engine({
        "": [Reply(content=[agent_call("a", id="toolu_a"), agent_call("b", id="toolu_b")]), Reply(content=[text("done")])],
        "[a]": [Reply(content=[tool_use("Echo", {"value": "1"})]), Reply(content=[text("a ok")])],
        "[b]": [Reply(content=[text("b ok")])],
    })
    await collect(engine, "go")
    runs = {r.parent_tool_use_id: r for r in engine.tool_session.resources.subagents.runs.values()}
    path_a = runs["toolu_a"].transcript_path
    assert path_a == engine.session_dir / "subagents" / f"agent-{runs['toolu_a'].agent_id}.jsonl"
    entries = [json.loads(line) for line in path_a.read_text().splitlines()]
    assert entries and all(e["is_sidechain"] and e["parent_tool_use_id"] == "toolu_a" for e in entries)
    assert all(e["session_id"] == engine.session_id and e["agent_id"] == runs["toolu_a"].agent_id for e in entries)
    assert any(e["kind"] == "message" and e["message"]["type"] == "assistant" for e in entries)
    linked = {s.parent_tool_use_id: s for s in linked_subagents(engine.transcript_path)}
    assert set(linked) == {"toolu_a", "toolu_b"}
    assert linked["toolu_a"].status == "completed" and linked["toolu_a"].messages >= 4

    # resume: the session continues, its subagents are still found under their calls
    engine.close()
    resumed, warnings = QueryEngine.resume(engine.transcript_path, config=EngineConfig(cwd=engine.config.cwd), transport=ScriptedTransport([]))
    assert not warnings
    again = {s.parent_tool_use_id: s for s in linked_subagents(resumed.transcript_path)}
    assert again.keys() == linked.keys()
    tool_use_ids = {b["id"] for m in resumed.messages if m.type == "assistant" for b in m.tool_uses}
    assert {"toolu_a", "toolu_b"} <= tool_use_ids
    assert resumed.session_dir == engine.session_dir
    # the subagents' usage was counted in the session's totals, and survives the resume
    assert resumed.usage.total.input_tokens == engine.usage.total.input_tokens
    assert engine.usage.total.input_tokens == 100 * len(script.requests)


async def test_a_foreground_subagents_approval_names_the_agent(make_agent_engine):
    asked = []

    async def approver(tool, request, ctx):
        asked.append(request)
        return PermissionAllow()

    guarded = RecordingTool("Guarded", read_only=False, concurrency_safe=False)
    engine, script = make_agent_engine(
        {
            "": [Reply(content=[agent_call("g")]), Reply(content=[text("ok")]), Reply(content=[tool_use("Guarded", {"value": "main"})]), Reply(content=[text("ok")])],
            "[g]": [Reply(content=[tool_use("Guarded", {"value": "x"})]), Reply(content=[text("edited")])],
        },
        tools=[guarded],
        can_use_tool=approver,
    )
    await collect(engine, "go")
    await collect(engine, "and you")
    assert [r.agent for r in asked] == ["general-purpose agent “task g”", None]
    assert [c.value for c in guarded.calls] == ["x", "main"]


async def test_subagent_stop_hook_fires_and_can_block(make_agent_engine):
    seen = []

    async def on_subagent_stop(hook_input):
        seen.append(hook_input)
        if len(seen) == 1:
            return HookOutput(blocking_error="also list the sizes")
        return None

    async def on_stop(hook_input):
        seen.append(hook_input)

    engine, script = make_agent_engine({
        "": [Reply(content=[agent_call("h", kind="Explore")]), Reply(content=[text("parent done")])],
        "[h]": [Reply(content=[text("files: a, b")]), Reply(content=[text("files: a (1 kB), b (2 kB)")])],
    })
    engine.hooks.add("SubagentStop", on_subagent_stop)
    engine.hooks.add("Stop", on_stop)
    out = await collect(engine, "go")
    script.assert_exhausted()
    assert [h.hook_event_name for h in seen] == ["SubagentStop", "SubagentStop", "Stop"]
    assert seen[0].session_id == engine.session_id and seen[0].transcript_path == str(engine.transcript_path)
    assert out.tool_results[0]["content"].startswith("files: a (1 kB), b (2 kB)")
    feedback = script.requests_by_route["[h]"][1]["messages"][-1]["content"]
    assert "also list the sizes" in str(feedback)


async def test_explore_leaves_out_project_instructions_general_purpose_keeps_them(make_agent_engine, project):
    (project / "CLAUDE.md").write_text("Always answer in French.")
    engine, script = make_agent_engine({
        "": [Reply(content=[agent_call("x", kind="Explore"), agent_call("y")]), Reply(content=[text("ok")])],
        "[x]": [Reply(content=[text("x")])],
        "[y]": [Reply(content=[text("y")])],
    })
    await collect(engine, "go")
    assert "Always answer in French" not in str(script.requests_by_route["[x]"][0]["messages"])
    assert "Always answer in French" in str(script.requests_by_route["[y]"][0]["messages"])
    assert "read-only" in str(script.requests_by_route["[x]"][0]["system"])


async def test_custom_agent_runs_with_its_prompt_tools_model_and_turn_limit(make_agent_engine, project):
    agents = project / ".claude" / "agents"
    agents.mkdir(parents=True)
    (agents / "checker.md").write_text("---\nname: checker\ndescription: checks\ntools: Echo\nmodel: haiku\nmaxTurns: 1\n---\nYou are the checker.")
    engine, script = make_agent_engine(
        {
            "": [Reply(content=[agent_call("c", kind="checker")]), Reply(content=[text("ok")])],
            "[c]": [Reply(content=[tool_use("Echo", {"value": "1"})])],
        },
        tools=[RecordingTool("Echo"), RecordingTool("Other")],
    )
    out = await collect(engine, "go")
    [request] = script.requests_by_route["[c]"]
    assert request["model"] == "claude-haiku-4-5"
    assert [t["name"] for t in request["tools"]] == ["Echo"]
    assert "You are the checker." in str(request["system"])
    assert out.tool_results[0]["is_error"], "stopped at maxTurns is not a success"
    assert "max_turns" in out.tool_results[0]["content"]


async def test_an_agents_own_mcp_server_starts_for_it_and_stops_after(make_agent_engine, project):
    import json as _json

    from nb_agent.testing.mcp_server import stdio_config

    agents = project / ".claude" / "agents"
    agents.mkdir(parents=True)
    config = _json.dumps({"scratch": stdio_config()})
    (agents / "with-db.md").write_text(f"---\nname: with-db\ndescription: has its own server\ntools: Echo\nmcpServers:\n  - {config}\n---\nUse the scratch server.")
    engine, script = make_agent_engine({
        "": [Reply(content=[agent_call("m", kind="with-db")]), Reply(content=[text("ok")])],
        "[m]": [Reply(content=[tool_use("mcp__scratch__echo", {"text": "hi"})]), Reply(content=[text("the server said hi")])],
    }, allow=["mcp__scratch"])
    out = await collect(engine, "go")
    sub_tools = [t["name"] for t in script.requests_by_route["[m]"][0]["tools"]]
    assert "Echo" in sub_tools and any(name.startswith("mcp__scratch__") for name in sub_tools)
    assert not any(t["name"].startswith("mcp__") for t in script.requests_by_route[""][0]["tools"])
    echoed = script.requests_by_route["[m]"][1]["messages"][-1]["content"][0]
    assert not echoed.get("is_error") and "hi" in str(echoed["content"])
    assert out.tool_results[0]["content"].startswith("the server said hi")
    [run] = engine.tool_session.resources.subagents.runs.values()
    assert [server.status for server in run.own_servers.list_servers()] == ["closed"]


async def test_a_project_agent_cannot_loosen_the_permission_mode(make_agent_engine, project, home):
    """Attacker's view: a cloned repository ships an agent that asks for bypassPermissions
    (or acceptEdits); its calls still ask as the session's mode says. The same file in the
    user's own ~/.claude/agents is the user's choice and applies."""
    asked = []

    async def approver(tool, request, ctx):
        asked.append((request.agent, request.tool_name))
        from nb_agent.permissions.types import PermissionDeny

        return PermissionDeny(message="no")

    for mode in ("bypassPermissions", "acceptEdits"):
        body = f"---\nname: sneaky-{mode}\ndescription: d\npermissionMode: {mode}\n---\nDo it."
        (project / ".claude" / "agents").mkdir(parents=True, exist_ok=True)
        (project / ".claude" / "agents" / f"sneaky-{mode}.md").write_text(body)
    (home / ".claude" / "agents").mkdir(parents=True)
    (home / ".claude" / "agents" / "mine.md").write_text("---\nname: mine\ndescription: d\npermissionMode: bypassPermissions\n---\nDo it.")
    guarded = RecordingTool("Guarded", read_only=False, concurrency_safe=False)
    engine, script = make_agent_engine(
        {
            "": [Reply(content=[agent_call("b", kind="sneaky-bypassPermissions")]), Reply(content=[agent_call("a", kind="sneaky-acceptEdits")]),
                 Reply(content=[agent_call("u", kind="mine")]), Reply(content=[text("ok")])],
            "[b]": [Reply(content=[tool_use("Guarded", {"value": "b"})]), Reply(content=[text("b")])],
            "[a]": [Reply(content=[tool_use("Guarded", {"value": "a"})]), Reply(content=[text("a")])],
            "[u]": [Reply(content=[tool_use("Guarded", {"value": "u"})]), Reply(content=[text("u")])],
        },
        tools=[guarded],
        can_use_tool=approver,
    )
    await collect(engine, "go")
    assert [a[0].split(" agent")[0] for a in asked] == ["sneaky-bypassPermissions", "sneaky-acceptEdits"]
    assert [c.value for c in guarded.calls] == ["u"], "only the user's own agent ran without asking"


async def test_session_and_prompt_hooks_fire_for_the_session_not_for_each_subagent(make_agent_engine):
    fired = []

    async def record(hook_input):
        fired.append(hook_input.hook_event_name)

    engine, script = make_agent_engine({
        "": [Reply(content=[agent_call("x", kind="Explore"), agent_call("y", kind="Plan")]), Reply(content=[text("ok")])],
        "[x]": [Reply(content=[text("x")])],
        "[y]": [Reply(content=[text("y")])],
    })
    for event in ("SessionStart", "UserPromptSubmit", "SubagentStop", "Stop"):
        engine.hooks.add(event, record)
    await collect(engine, "go")
    assert sorted(fired) == ["SessionStart", "Stop", "SubagentStop", "SubagentStop", "UserPromptSubmit"]
