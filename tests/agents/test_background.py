"""Background agents: an immediate result with the id, the final message at the next
submission, no asking, ``stop``."""

from __future__ import annotations

import asyncio

from nb_agent.testing import Reply, held_at_end, text, tool_use
from nb_agent.testing.collect import assert_history_invariant, collect
from nb_agent.testing.tools import RecordingTool


def background_call(tag: str, id: str | None = None, kind: str = "general-purpose"):
    return tool_use("Agent", {"description": f"bg {tag}", "prompt": f"[{tag}] work", "subagent_type": kind, "run_in_background": True}, id=id)


async def test_background_completion_arrives_at_the_next_submission(make_agent_engine):
    echo = RecordingTool("Read")  # on the background allow-list
    engine, script = make_agent_engine(
        {
            "": [Reply(content=[background_call("bg", id="toolu_bg")]), Reply(content=[text("started it")])],
            # its answer is held until the test has seen the submission end before the agent
            "[bg]": [Reply(content=[tool_use("Read", {"value": "x"})]), finding := held_at_end(Reply(content=[text("background finding: 7 files")]))],
        },
        tools=[echo],
    )
    out = await collect(engine, "start it")
    assert out.result.subtype == "success"
    [launched] = out.tool_results
    assert "Async agent launched successfully" in launched["content"] and not launched.get("is_error")
    host = engine.tool_session.resources.subagents
    [run] = host.background_runs()
    assert not run.finished, "the submission ended while the agent still works"
    finding.release.set()
    await asyncio.wait_for(run.task, timeout=60)
    assert run.status == "completed"
    assert run.agent_id in launched["content"]
    script.add(Reply(content=[text("noted")]))
    follow = await collect(engine, "anything new?")
    [notice] = follow.of_type("attachment")
    assert "background finding: 7 files" in notice.content and run.agent_id in notice.content
    request = str(script.requests_by_route[""][-1]["messages"])
    assert "<task-notification>" in request and "background finding: 7 files" in request
    assert request.index("task-notification") > request.index("anything new?")
    assert not engine.pending_notifications
    assert_history_invariant(engine.messages)


async def test_a_background_agent_cannot_ask_its_ask_is_a_denial(make_agent_engine):
    asked = []

    async def approver(tool, request, ctx):
        asked.append(request)
        raise AssertionError("a background agent must not ask")

    guarded = RecordingTool("Edit", read_only=False, concurrency_safe=False)
    engine, script = make_agent_engine(
        {
            "": [Reply(content=[background_call("bg")]), Reply(content=[text("ok")])],
            "[bg]": [Reply(content=[tool_use("Edit", {"value": "x"}, id="toolu_edit")]), Reply(content=[text("could not edit")])],
        },
        tools=[guarded],
        can_use_tool=approver,
    )
    await collect(engine, "go")
    [run] = engine.tool_session.resources.subagents.background_runs()
    await asyncio.wait_for(run.task, timeout=10)
    assert not asked and not guarded.calls
    denial = script.requests_by_route["[bg]"][1]["messages"][-1]["content"][0]
    assert denial["is_error"] and "runs in the background" in denial["content"]


async def test_stop_by_id_prefix(make_agent_engine):
    echo = RecordingTool("Read")
    engine, script = make_agent_engine(
        {
            "": [Reply(content=[background_call("bg")]), Reply(content=[text("ok")])],
            "[bg]": [Reply(content=[tool_use("Read", {"value": "x", "sleep": 100})])],
        },
        tools=[echo],
    )
    await collect(engine, "go")
    host = engine.tool_session.resources.subagents
    [run] = host.background_runs()
    while not echo.calls:
        await asyncio.sleep(0.01)
    assert host.stop(run.agent_id[:8]) is run
    # Generous: only separates "waited for the 100 s sleep" from "did not" (shared machines).
    await asyncio.wait_for(run.task, timeout=20)
    assert run.status == "stopped" and echo.calls[0].cancelled
    [notice] = engine.pending_notifications
    assert "was stopped" in notice.content


async def test_background_agents_survive_the_parents_stop(make_agent_engine):
    echo = RecordingTool("Read")
    engine, script = make_agent_engine(
        {
            "": [Reply(content=[background_call("bg"), tool_use("Read", {"value": "parent", "sleep": 30})])],
            "[bg]": [Reply(content=[tool_use("Read", {"value": "sub", "sleep": 0.2})]), Reply(content=[text("done anyway")])],
        },
        tools=[echo],
    )
    task = asyncio.ensure_future(collect(engine, "go"))
    while len(echo.calls) < 2:
        await asyncio.sleep(0.01)
    engine.interrupt()
    await task
    [run] = engine.tool_session.resources.subagents.background_runs()
    await asyncio.wait_for(run.task, timeout=20)  # a guard against hanging, not a speed check
    assert run.status == "completed" and run.text == "done anyway"


async def test_a_background_result_reaches_a_running_conversation_at_its_next_turn(make_agent_engine):
    """Seed 002 §14: queued notifications join at the next turn boundary of the running
    loop, not only at the next submission."""
    from pydantic import BaseModel

    from nb_agent.testing.tools import FunctionTool

    class Nothing(BaseModel):
        pass

    waiting = asyncio.Event()

    async def wait_for_agents(_input, ctx):  # the main agent keeps working meanwhile
        waiting.set()
        host = ctx.session.resources.subagents
        await asyncio.gather(*(r.task for r in host.background_runs()))
        return "waited"

    async def hold(_input, ctx):  # the background agent's Read: it ends only once the main agent waits
        await waiting.wait()
        return "held"

    engine, script = make_agent_engine(
        {
            "": [
                Reply(content=[background_call("bg", id="toolu_bg")]),
                Reply(content=[tool_use("Wait", {}, id="toolu_wait")]),
                Reply(content=[text("the background agent found 7 files")]),
            ],
            "[bg]": [Reply(content=[tool_use("Read", {})]), Reply(content=[text("background finding: 7 files")])],
        },
        tools=[FunctionTool("Read", hold, Nothing, read_only=True), FunctionTool("Wait", wait_for_agents, Nothing, read_only=True)],
    )
    out = await collect(engine, "start it and carry on")
    assert out.result.subtype == "success"
    [notice] = out.of_type("attachment")
    assert "background finding: 7 files" in notice.content
    third = str(script.requests_by_route[""][2]["messages"])
    assert "<task-notification>" in third and third.index("task-notification") > third.index("toolu_wait")
    assert not engine.pending_notifications, "taken in once"
    script.add(Reply(content=[text("ok")]))
    follow = await collect(engine, "thanks")
    assert follow.of_type("attachment") == [], "not repeated at the next submission"
    assert_history_invariant(engine.messages)


async def test_a_background_agent_does_not_keep_a_cells_permission_mode(make_agent_engine):
    """``%%agent --permission-mode bypassPermissions`` sets the session's mode for one cell;
    a background agent started in it must not keep that mode once the cell has ended."""
    from pydantic import BaseModel

    from nb_agent.testing.tools import FunctionTool

    gate = asyncio.Event()

    class Empty(BaseModel):
        pass

    async def wait_for_gate(_input, _ctx):
        await gate.wait()
        return "read"

    reader = FunctionTool("Read", wait_for_gate, Empty, read_only=True, concurrency_safe=True)
    writer = RecordingTool("Write", read_only=False)
    engine, _ = make_agent_engine(
        {
            "": [Reply(content=[background_call("bg", id="toolu_bg")]), Reply(content=[text("started it")])],
            "[bg]": [
                Reply(content=[tool_use("Read", {})]),
                Reply(content=[tool_use("Write", {"value": "after the cell"})]),
                Reply(content=[text("done")]),
            ],
        },
        tools=[reader, writer],
    )
    policy = engine.permission_policy
    policy.set_mode("bypassPermissions")  # the cell's --permission-mode
    engine.config.permission_mode = "bypassPermissions"
    out = await collect(engine, "start it")
    assert out.result.subtype == "success"
    policy.set_mode("default")  # the cell ended: its mode is put back
    engine.config.permission_mode = "default"
    gate.set()
    [run] = engine.tool_session.resources.subagents.background_runs()
    await asyncio.wait_for(run.task, timeout=30)  # generous: only "finished" vs "stuck"
    assert writer.calls == [], "the Write ran in the cell's bypassPermissions after the cell ended"
