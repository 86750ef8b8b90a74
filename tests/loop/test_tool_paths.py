"""The tool path of the loop, with and without streaming execution."""

from __future__ import annotations

from dataclasses import replace

import pytest

from nb_agent.testing import Reply, text, tool_use
from nb_agent.testing.collect import assert_history_invariant
from nb_agent.testing.harness import run_query
from nb_agent.testing.tools import FunctionTool, RecordingInput
from nb_agent.tools.base import ToolResult


@pytest.mark.parametrize("streaming", [True, False])
async def test_an_unsafe_tools_context_modifier_reaches_the_next_turn(streaming):
    seen_options = []

    async def set_mode(input, ctx):
        return ToolResult(data="mode set", context_modifier=lambda c: replace(c, permission_mode=input.value))

    async def read_mode(input, ctx):
        seen_options.append(ctx.permission_mode)
        return ctx.permission_mode

    tools = [FunctionTool("SetMode", set_mode, RecordingInput), FunctionTool("ReadMode", read_mode, RecordingInput)]
    run = await run_query(
        [
            Reply(content=[tool_use("SetMode", {"value": "acceptEdits"})]),
            Reply(content=[tool_use("ReadMode", {})]),
            Reply(content=[text("done")]),
        ],
        tools=tools,
        streaming_tool_execution=streaming,
    )
    assert run.terminal.reason == "completed"
    assert seen_options == ["acceptEdits"]


@pytest.mark.parametrize("streaming", [True, False])
async def test_tools_run_during_or_after_the_stream(streaming):
    events = []

    async def mark(input, ctx):
        events.append("tool")
        return "ok"

    reply = Reply(content=[tool_use("Mark", {}), text("more text after the call")], chunk_size=4, delay=0.002)
    run = await run_query([reply, Reply(content=[text("done")])], tools=[FunctionTool("Mark", mark, RecordingInput)], streaming_tool_execution=streaming)
    stream_end = next(i for i, e in enumerate(run.events) if e.type == "stream_event" and e.event.type == "message_stop")
    result_at = next(i for i, e in enumerate(run.events) if e.type == "user" and e.tool_result_ids)
    assert (result_at < stream_end) is streaming
    assert_history_invariant(run.history)


async def test_between_turns_attachments_reach_the_next_request_after_the_tool_results():
    notes = [["the user edited cell a"], []]

    async def between_turns():
        from nb_agent.messages import AttachmentMessage

        return [AttachmentMessage(kind="notebook_changes", content=note) for note in notes.pop(0)]

    async def noop(input, ctx):
        return "ok"

    run = await run_query(
        [Reply(content=[tool_use("Noop", {})]), Reply(content=[tool_use("Noop", {})]), Reply(content=[text("done")])],
        tools=[FunctionTool("Noop", noop, RecordingInput)],
        deps={"between_turns": between_turns},
    )
    assert run.terminal.reason == "completed" and notes == []
    second, third = run.requests[1], run.requests[2]
    assert "the user edited cell a" in str(second["messages"][-1]["content"])
    assert str(third).count("the user edited cell a") == 1  # said once, kept in the history
    assert_history_invariant(run.history)
