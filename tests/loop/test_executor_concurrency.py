"""StreamingToolExecutor: safe tools overlap, unsafe tools run alone, the concurrency cap."""

from __future__ import annotations

from dataclasses import replace

import pytest

from nb_agent.loop.executor import StreamingToolExecutor
from nb_agent.loop.pipeline import ToolRunDeps
from nb_agent.testing import tool_use
from nb_agent.testing.harness import tool_context
from nb_agent.testing.tools import FunctionTool, RecordingInput, RecordingTool
from nb_agent.tools.base import ToolResult


def _executor(*tools, **kw):
    return StreamingToolExecutor(ctx=tool_context(tools), deps=ToolRunDeps(), **kw)


async def _run(executor, blocks):
    for block in blocks:
        executor.add_tool(block)
    return [u async for u in executor.get_remaining_results()]


def _overlap(a, b) -> bool:
    return a.started < b.ended and b.started < a.ended


def _max_overlap(calls) -> int:
    points = sorted([(c.started, 1) for c in calls] + [(c.ended, -1) for c in calls], key=lambda p: (p[0], p[1]))
    level = peak = 0
    for _, delta in points:
        level += delta
        peak = max(peak, level)
    return peak


async def test_safe_tools_overlap():
    safe = RecordingTool("Safe")
    await _run(_executor(safe), [tool_use("Safe", {"value": str(i), "sleep": 0.1}) for i in range(3)])
    a, b, c = safe.calls
    assert _overlap(a, b) and _overlap(b, c) and _overlap(a, c)


async def test_unsafe_tools_run_alone():
    safe, unsafe = RecordingTool("Safe"), RecordingTool("Unsafe", concurrency_safe=False)
    blocks = [
        tool_use("Safe", {"value": "s1", "sleep": 0.05}),
        tool_use("Unsafe", {"value": "u1", "sleep": 0.05}),
        tool_use("Unsafe", {"value": "u2", "sleep": 0.05}),
        tool_use("Safe", {"value": "s2", "sleep": 0.05}),
    ]
    updates = await _run(_executor(safe, unsafe), blocks)
    s1, s2 = safe.calls
    u1, u2 = unsafe.calls
    assert u1.started >= s1.ended
    assert u2.started >= u1.ended
    assert s2.started >= u2.ended
    assert [u.message.content[0]["content"] for u in updates] == ["Safe: s1", "Unsafe: u1", "Unsafe: u2", "Safe: s2"]


async def test_queue_scan_stops_at_a_blocked_unsafe_tool():
    safe, unsafe = RecordingTool("Safe"), RecordingTool("Unsafe", concurrency_safe=False)
    blocks = [
        tool_use("Safe", {"value": "running", "sleep": 0.15}),
        tool_use("Unsafe", {"value": "blocked", "sleep": 0.05}),
        tool_use("Safe", {"value": "behind", "sleep": 0.05}),
    ]
    executor = _executor(safe, unsafe)
    for block in blocks:
        executor.add_tool(block)
    # "behind" could run next to "running", but must not overtake the blocked unsafe tool.
    assert [t.status for t in executor.tracked] == ["executing", "queued", "queued"]
    [u async for u in executor.get_remaining_results()]
    running, behind = safe.calls
    [blocked] = unsafe.calls
    assert blocked.started >= running.ended
    assert behind.started >= blocked.ended


@pytest.mark.parametrize("variable", ["NB_AGENT_MAX_TOOL_CONCURRENCY", "CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY"])
async def test_max_concurrency_from_the_environment(monkeypatch, variable):
    monkeypatch.setenv(variable, "2")
    safe = RecordingTool("Safe")
    updates = await _run(_executor(safe), [tool_use("Safe", {"value": str(i), "sleep": 0.05}) for i in range(6)])
    assert len(updates) == 6
    assert _max_overlap(safe.calls) == 2


def test_claude_codes_variable_is_read_and_nb_agents_own_wins(monkeypatch):
    """Audit defect 9: Claude Code's variable is read, as its other variables are."""
    from nb_agent.loop.executor import max_tool_concurrency

    monkeypatch.delenv("NB_AGENT_MAX_TOOL_CONCURRENCY", raising=False)
    monkeypatch.setenv("CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY", "3")
    assert max_tool_concurrency() == 3
    monkeypatch.setenv("NB_AGENT_MAX_TOOL_CONCURRENCY", "5")
    assert max_tool_concurrency() == 5


async def test_a_bad_concurrency_setting_falls_back_to_the_default(monkeypatch):
    monkeypatch.setenv("NB_AGENT_MAX_TOOL_CONCURRENCY", "lots")
    safe = RecordingTool("Safe")
    await _run(_executor(safe), [tool_use("Safe", {"value": str(i), "sleep": 0.05}) for i in range(4)])
    assert _max_overlap(safe.calls) == 4


def _marking_tool(name: str, *, safe: bool) -> FunctionTool:
    async def fn(input, ctx):
        return ToolResult(data="ok", context_modifier=lambda c: replace(c, query_source=f"touched by {name}"))

    return FunctionTool(name, fn, RecordingInput, concurrency_safe=safe)


async def test_context_modifier_applies_only_for_unsafe_tools():
    executor = _executor(_marking_tool("SafeMod", safe=True), _marking_tool("UnsafeMod", safe=False))
    await _run(executor, [tool_use("SafeMod", {})])
    assert executor.context.query_source == "repl_main_thread"
    await _run(executor, [tool_use("UnsafeMod", {})])
    assert executor.context.query_source == "touched by UnsafeMod"


async def test_concurrency_safety_is_computed_from_the_input():
    class PerInput(RecordingTool):
        def is_concurrency_safe(self, input):
            return input.value.startswith("read")

    tool = PerInput("Mixed")
    executor = _executor(tool)
    executor.add_tool(tool_use("Mixed", {"value": "read a", "sleep": 0.1}))
    executor.add_tool(tool_use("Mixed", {"value": "read b", "sleep": 0.1}))
    executor.add_tool(tool_use("Mixed", {"value": "write c", "sleep": 0.1}))
    executor.add_tool(tool_use("Mixed", {"value": 123}))  # invalid input: unsafe (fail closed)
    assert [t.is_concurrency_safe for t in executor.tracked] == [True, True, False, False]
    [u async for u in executor.get_remaining_results()]
