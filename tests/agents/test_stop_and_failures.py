"""Stop cancels every subagent; a failing subagent is an error result, not a broken parent."""

from __future__ import annotations

import asyncio

from nb_agent.testing import ErrorReply, Reply, text, tool_use
from nb_agent.testing.collect import assert_history_invariant, collect
from nb_agent.testing.tools import RecordingTool
from nb_agent.transcript import load_transcript


def agent_call(tag: str, kind: str = "Explore", id: str | None = None):
    return tool_use("Agent", {"description": f"task {tag}", "prompt": f"[{tag}] work", "subagent_type": kind}, id=id)


async def test_stop_cancels_three_running_subagents(make_agent_engine):
    echo = RecordingTool("Echo")
    engine, script = make_agent_engine(
        {
            "": [Reply(content=[agent_call("a"), agent_call("b"), agent_call("c")])],
            **{f"[{t}]": [Reply(content=[tool_use("Echo", {"value": t, "sleep": 100})])] for t in "abc"},
        },
        tools=[echo],
    )
    events = []

    async def run():
        async for event in engine.submit_message("go"):
            events.append(event)

    task = asyncio.ensure_future(run())
    while len(echo.calls) < 3:  # all three subagents are inside their tool call
        await asyncio.sleep(0.01)
    host = engine.tool_session.resources.subagents
    runs = list(host.runs.values())
    engine.interrupt()
    # Generous: only separates "waited for the subagents' 100 s sleeps" from "did not" (shared
    # machines); bench/hook_stop.py measures the Stop target.
    await asyncio.wait_for(task, timeout=20)
    assert all(call.cancelled for call in echo.calls)
    assert [r.status for r in runs] == ["stopped"] * 3
    result = events[-1]
    assert result.subtype == "interrupted"
    assert_history_invariant(engine.messages)
    for run in runs:  # every subagent answered its own tool_use too
        assert_history_invariant(load_transcript(run.transcript_path).messages)


async def test_a_failing_subagent_returns_an_error_result(make_agent_engine):
    engine, script = make_agent_engine({
        "": [Reply(content=[agent_call("bad", id="toolu_bad"), agent_call("good", id="toolu_good")]), Reply(content=[text("one failed")])],
        "[bad]": [ErrorReply(status=400, error_type="invalid_request_error", message="something is wrong")],
        "[good]": [Reply(content=[text("good result")])],
    })
    out = await collect(engine, "go")
    assert out.result.subtype == "success"
    results = {r["tool_use_id"]: r for r in out.tool_results}
    assert results["toolu_bad"]["is_error"] is True
    assert "failed" in results["toolu_bad"]["content"] and "something is wrong" in results["toolu_bad"]["content"]
    assert results["toolu_good"]["content"].startswith("good result")
    assert_history_invariant(engine.messages)


async def test_unknown_agent_type_is_an_error_the_model_reads(make_agent_engine):
    engine, script = make_agent_engine({
        "": [Reply(content=[agent_call("x", kind="Nope", id="toolu_x")]), Reply(content=[text("ok")])],
    })
    out = await collect(engine, "go")
    [result] = out.tool_results
    assert result["is_error"] and "Agent type 'Nope' not found" in result["content"] and "Explore" in result["content"]


async def test_task_alias_runs_the_agent_tool(make_agent_engine):
    engine, script = make_agent_engine({
        "": [Reply(content=[tool_use("Task", {"description": "d", "prompt": "[t] hi", "subagent_type": "Plan"}, id="toolu_t")]), Reply(content=[text("ok")])],
        "[t]": [Reply(content=[text("a plan")])],
    })
    out = await collect(engine, "go")
    assert out.tool_results[0]["content"].startswith("a plan")


async def test_subagents_cannot_recurse_by_default(make_agent_engine):
    engine, script = make_agent_engine({
        "": [Reply(content=[agent_call("outer", kind="general-purpose")]), Reply(content=[text("ok")])],
        "[outer]": [Reply(content=[tool_use("Agent", {"description": "d", "prompt": "[inner] x"}, id="toolu_inner")]), Reply(content=[text("could not")])],
    })
    out = await collect(engine, "go")
    assert out.result.subtype == "success"
    sub_requests = script.requests_by_route["[outer]"]
    assert "Agent" not in [t["name"] for t in sub_requests[0]["tools"]]
    inner_result = sub_requests[1]["messages"][-1]["content"][0]
    assert inner_result["is_error"] and "No such tool available: Agent" in inner_result["content"]
    script.assert_exhausted()
