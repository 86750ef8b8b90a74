"""The invariant under random faults inside subagents: every tool_use of the parent and of
each subagent gets exactly one tool_result, whatever the subagents' tools and models do
and whenever the user stops the run; the engine then takes the next submission."""

from __future__ import annotations

import asyncio
import random

from nb_agent.testing import ErrorReply, Reply, text, tool_use
from nb_agent.testing.collect import assert_history_invariant, assert_tool_result_invariant
from nb_agent.testing.tools import RecordingTool
from nb_agent.transcript import load_transcript

SEED = 1313
RUNS = 60
STEPS = ["ok", "ok", "fail", "crash", "sleep", "unknown", "invalid", "model_error", "stream_error", "parallel"]


def sub_turns(rng: random.Random, tag: str) -> list:
    turns: list = []
    for _ in range(rng.randint(0, 3)):
        step = rng.choice(STEPS)
        if step == "model_error":
            turns.append(ErrorReply(status=500, error_type="api_error"))
            return turns
        if step == "stream_error":
            turns.append(Reply(content=[text("partial"), tool_use("Echo", {"value": tag})], error_after_events=rng.randint(1, 6)))
            return turns
        if step == "unknown":
            block = tool_use("Nope", {"x": 1})
        elif step == "invalid":
            block = tool_use("Echo", {"sleep": "not a number"})
        elif step == "parallel":
            turns.append(Reply(content=[tool_use("Echo", {"value": "p1", "sleep": 0.01}), tool_use("Echo", {"value": "p2", "fail": True})]))
            continue
        else:
            block = tool_use("Echo", {"value": tag, "fail": step == "fail", "crash": step == "crash", "sleep": 0.05 if step == "sleep" else 0})
        turns.append(Reply(content=[block]))
    turns.append(Reply(content=[text(f"{tag} finished")]))
    return turns


async def one_run(make_agent_engine, rng: random.Random, index: int) -> None:
    tags = [f"r{index}s{i}" for i in range(rng.randint(1, 3))]
    calls = [tool_use("Agent", {"description": t, "prompt": f"[{t}] work", "subagent_type": rng.choice(["Explore", "general-purpose"])}) for t in tags]
    routes = {"": [Reply(content=calls), Reply(content=[text("parent done")])]}
    routes.update({f"[{t}]": sub_turns(rng, t) for t in tags})
    engine, script = make_agent_engine(routes, tools=[RecordingTool("Echo")])
    stop_after = rng.choice([None, None, 0.0, 0.02, 0.08])

    async def consume():
        async for _ in engine.submit_message("go"):
            pass

    task = asyncio.ensure_future(consume())
    if stop_after is not None:
        await asyncio.sleep(stop_after)
        engine.interrupt()
    await asyncio.wait_for(task, timeout=20)
    assert_history_invariant(engine.messages)
    for request in script.requests:
        assert_tool_result_invariant(request["messages"])
    host = engine.tool_session.resources.subagents
    for run in host.runs.values():
        assert run.finished
        if run.transcript_path is not None and run.transcript_path.exists():
            assert_history_invariant(load_transcript(run.transcript_path).messages)
    script.add(Reply(content=[text("follow-up")]))
    async for event in engine.submit_message("again"):
        last = event
    assert last.subtype == "success", last
    assert_history_invariant(engine.messages)


async def test_invariant_under_random_subagent_faults(make_agent_engine):
    rng = random.Random(SEED)
    for index in range(RUNS):
        await one_run(make_agent_engine, rng, index)
