"""Calls added all at once (tools run after the stream): one scheduling algorithm, the
streaming executor's. Consecutive safe calls run in parallel, unsafe calls alone, nothing
overtakes an unsafe call, results come out in order and progress first."""

from __future__ import annotations

from nb_agent.loop.executor import StreamingToolExecutor
from nb_agent.loop.pipeline import ToolRunDeps
from nb_agent.testing import tool_use
from nb_agent.testing.harness import tool_context
from nb_agent.testing.tools import RecordingTool


def _tools():
    return RecordingTool("Safe"), RecordingTool("Unsafe", concurrency_safe=False)


async def _run_all(blocks, ctx):
    executor = StreamingToolExecutor(ctx=ctx, deps=ToolRunDeps())
    for block in blocks:
        executor.add_tool(block)
    return [u async for u in executor.get_remaining_results()]


async def test_safe_runs_in_parallel_unsafe_alone_in_order():
    safe, unsafe = _tools()
    blocks = [
        tool_use("Safe", {"value": "s1", "sleep": 0.1}),
        tool_use("Safe", {"value": "s2", "sleep": 0.02, "progress": 1}),
        tool_use("Unsafe", {"value": "u1", "sleep": 0.02}),
        tool_use("Safe", {"value": "s3"}),
        tool_use("Missing", {}),
    ]
    updates = await _run_all(blocks, tool_context([safe, unsafe]))
    results = [u.message.content[0]["content"] for u in updates if u.message.type == "user"]
    assert results == ["Safe: s1", "Safe: s2", "Unsafe: u1", "Safe: s3", "<tool_use_error>Error: No such tool available: Missing</tool_use_error>"]
    assert updates[0].message.type == "progress", "progress comes out before the results"
    s1, s2, s3 = safe.calls
    [u1] = unsafe.calls
    assert s2.started < s1.ended  # the safe calls ran in parallel
    assert u1.started >= s1.ended and u1.started >= s2.ended  # the unsafe call waited for them
    assert s3.started >= u1.ended  # and nothing overtook it


async def test_the_concurrency_cap_holds(monkeypatch):
    monkeypatch.setenv("NB_AGENT_MAX_TOOL_CONCURRENCY", "2")
    safe, _ = _tools()
    await _run_all([tool_use("Safe", {"value": str(i), "sleep": 0.05}) for i in range(5)], tool_context([safe]))
    running = 0
    peak = 0
    for _, delta in sorted([(c.started, 1) for c in safe.calls] + [(c.ended, -1) for c in safe.calls]):
        running += delta
        peak = max(peak, running)
    assert peak == 2
