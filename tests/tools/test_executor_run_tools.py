"""The batch runner: consecutive safe calls in parallel, unsafe calls alone, order kept."""

from __future__ import annotations

from nb_agent.testing import tool_use
from nb_agent.testing.harness import tool_context
from nb_agent.testing.tools import RecordingTool
from nb_agent.tools.pipeline import ToolRunDeps
from nb_agent.tools.run_tools import partition_tool_calls, run_tools


def _tools():
    return RecordingTool("Safe"), RecordingTool("Unsafe", concurrency_safe=False)


def test_partition_into_maximal_safe_runs_and_single_unsafe_calls():
    ctx = tool_context(_tools())
    names = ["Safe", "Safe", "Unsafe", "Safe", "Unsafe", "Unsafe", "Missing", "Safe", "Safe"]
    batches = partition_tool_calls([tool_use(n, {}) for n in names], ctx)
    assert [(b.is_concurrency_safe, [x["name"] for x in b.blocks]) for b in batches] == [
        (True, ["Safe", "Safe"]),
        (False, ["Unsafe"]),
        (True, ["Safe"]),
        (False, ["Unsafe"]),
        (False, ["Unsafe"]),
        (False, ["Missing"]),
        (True, ["Safe", "Safe"]),
    ]


async def test_run_tools_parallel_then_serial_in_order():
    safe, unsafe = _tools()
    blocks = [
        tool_use("Safe", {"value": "s1", "sleep": 0.1}),
        tool_use("Safe", {"value": "s2", "sleep": 0.02, "progress": 1}),
        tool_use("Unsafe", {"value": "u1", "sleep": 0.02}),
        tool_use("Safe", {"value": "s3"}),
        tool_use("Missing", {}),
    ]
    ctx = tool_context([safe, unsafe])
    updates = [u async for u, _ in run_tools(blocks, ctx, ToolRunDeps())]
    results = [u.message.content[0]["content"] for u in updates if u.message.type == "user"]
    assert results == ["Safe: s1", "Safe: s2", "Unsafe: u1", "Safe: s3", "<tool_use_error>Error: No such tool available: Missing</tool_use_error>"]
    assert updates[0].message.type == "progress", "progress comes out before the batch's results"
    s1, s2, s3 = safe.calls
    [u1] = unsafe.calls
    assert s2.started < s1.ended  # the safe batch ran in parallel
    assert u1.started >= s1.ended and s3.started >= u1.ended


async def test_run_tools_respects_the_concurrency_cap(monkeypatch):
    monkeypatch.setenv("NB_AGENT_MAX_TOOL_CONCURRENCY", "2")
    safe, _ = _tools()
    ctx = tool_context([safe])
    [u async for u in run_tools([tool_use("Safe", {"value": str(i), "sleep": 0.05}) for i in range(5)], ctx, ToolRunDeps())]
    running = 0
    peak = 0
    for _, delta in sorted([(c.started, 1) for c in safe.calls] + [(c.ended, -1) for c in safe.calls]):
        running += delta
        peak = max(peak, running)
    assert peak == 2
