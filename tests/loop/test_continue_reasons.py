"""Every continue reason of SPEC §2, reached by a scripted run of ``query()``."""

from __future__ import annotations

from nb_agent.context.compaction import CompactionResult
from nb_agent.hooks import HookOutput, Hooks
from nb_agent.loop.pipeline import ToolRunDeps
from nb_agent.loop.query import MAX_OUTPUT_TOKENS_RECOVERY_TEXT
from nb_agent.loop.state import CONTINUE_REASONS
from nb_agent.messages import CompactBoundaryMessage, UserMessage
from nb_agent.testing import Reply, prompt_too_long_error, text, tool_use
from nb_agent.testing.collect import assert_tool_result_invariant
from nb_agent.testing.harness import run_query
from nb_agent.testing.tools import RecordingTool

COVERED: set[str] = set()


def covers(reason: str):
    """Marks the test that reaches ``reason``; the last test checks every reason has one."""
    COVERED.add(reason)
    return lambda test: test


def _last_text(request) -> str:
    content = request["messages"][-1]["content"]
    return content if isinstance(content, str) else " ".join(b.get("text", "") for b in content)


@covers("next_turn")
async def test_next_turn_after_tool_results(transitions):
    run = await run_query(
        [Reply(content=[tool_use("Echo", {"value": "a"})]), Reply(content=[text("done")])], tools=[RecordingTool("Echo")]
    )
    assert transitions == [None, "next_turn"]
    assert run.terminal.reason == "completed" and run.terminal.turn_count == 2
    assert_tool_result_invariant(run.requests[1]["messages"])


@covers("collapse_drain_retry")
async def test_collapse_drain_retry_after_prompt_too_long(transitions):
    drained_windows = []

    async def collapse_drain(window):
        drained_windows.append(list(window))
        return window[-1:]

    old = [UserMessage(content=f"old {i}") for i in range(3)]
    run = await run_query(
        [prompt_too_long_error(), Reply(content=[text("fits now")])],
        messages=old,
        deps={"collapse_drain": collapse_drain},
    )
    assert transitions == [None, "collapse_drain_retry"]
    assert run.terminal.reason == "completed" and run.terminal.error is None
    assert len(drained_windows) == 1
    assert len(run.requests[1]["messages"]) == 1
    assert not any(getattr(e, "is_api_error_message", False) for e in run.events), "the withheld error stays hidden"


@covers("reactive_compact_retry")
async def test_reactive_compact_retry_after_prompt_too_long(transitions):
    async def reactive_compact(window, ctx):
        boundary = CompactBoundaryMessage(summary="the story so far", trigger="reactive")
        return CompactionResult(messages=[boundary, window[-1]], boundary=boundary)

    run = await run_query(
        [prompt_too_long_error(), Reply(content=[text("fits now")])],
        messages=[UserMessage(content="x" * 100) for _ in range(3)],
        deps={"reactive_compact": reactive_compact},
    )
    assert transitions == [None, "reactive_compact_retry"]
    assert run.terminal.reason == "completed"
    assert run.of_type("compact_boundary")
    assert "the story so far" in run.requests[1]["messages"][0]["content"][0]["text"]


@covers("max_output_tokens_escalate")
async def test_max_output_tokens_escalates_the_cap_once(transitions):
    run = await run_query([Reply(content=[text("cut")], stop_reason="max_tokens"), Reply(content=[text("whole answer")])])
    assert transitions == [None, "max_output_tokens_escalate"]
    assert [r["max_tokens"] for r in run.requests] == [8192, 64000]
    # The cut-off answer is withdrawn and the same request retried.
    assert run.of_type("tombstone")
    assert [m.text for m in run.history if m.type == "assistant"] == ["whole answer"]
    assert run.requests[1]["messages"] == run.requests[0]["messages"]
    assert run.terminal.reason == "completed"


@covers("max_output_tokens_recovery")
async def test_max_output_tokens_recovery_three_times_then_surfaced(transitions):
    cut = [Reply(content=[text(f"part {i}")], stop_reason="max_tokens") for i in range(5)]
    run = await run_query(cut)
    assert transitions == [None, "max_output_tokens_escalate", *["max_output_tokens_recovery"] * 3]
    assert [r["max_tokens"] for r in run.requests] == [8192, *[64000] * 4]
    for request in run.requests[2:]:
        assert MAX_OUTPUT_TOKENS_RECOVERY_TEXT in _last_text(request)
    assert run.terminal.reason == "completed"
    assert run.terminal.error == "max_output_tokens"
    assert any(e.type == "system" and e.subtype == "max_output_tokens" for e in run.events)


async def test_configured_max_output_tokens_skips_the_escalation(transitions):
    run = await run_query(
        [Reply(content=[text("cut")], stop_reason="max_tokens"), Reply(content=[text("rest")])], max_output_tokens=1000
    )
    assert transitions == [None, "max_output_tokens_recovery"]
    assert [r["max_tokens"] for r in run.requests] == [1000, 1000]


@covers("stop_hook_blocking")
async def test_stop_hook_blocking_feeds_the_error_back(transitions):
    inputs = []

    async def stop_hook(hook_input):
        inputs.append(hook_input)
        return HookOutput(blocking_error="tests are failing, keep going") if len(inputs) == 1 else None

    hooks = Hooks()
    hooks.add("Stop", stop_hook)
    run = await run_query(
        [Reply(content=[text("done?")]), Reply(content=[text("now done")])], tool_run_deps=ToolRunDeps(hooks=hooks)
    )
    assert transitions == [None, "stop_hook_blocking"]
    assert "tests are failing, keep going" in _last_text(run.requests[1])
    assert [i.stop_hook_active for i in inputs] == [False, True]
    assert run.terminal.reason == "completed"


async def test_reactive_compact_flag_survives_stop_hook_blocking(transitions):
    """compact → prompt-too-long → hook → compact must not loop: one reactive compact per turn."""
    compactions = []

    async def reactive_compact(window, ctx):
        compactions.append(len(window))
        boundary = CompactBoundaryMessage(summary="summary", trigger="reactive")
        return CompactionResult(messages=[boundary, window[-1]], boundary=boundary)

    async def stop_hook(hook_input):
        return HookOutput(blocking_error="not yet")

    hooks = Hooks()
    hooks.add("Stop", stop_hook)
    run = await run_query(
        [prompt_too_long_error(), Reply(content=[text("answer")]), prompt_too_long_error()],
        deps={"reactive_compact": reactive_compact},
        tool_run_deps=ToolRunDeps(hooks=hooks),
    )
    assert transitions == [None, "reactive_compact_retry", "stop_hook_blocking"]
    assert len(compactions) == 1
    assert run.terminal.reason == "prompt_too_long"


@covers("token_budget_continuation")
async def test_token_budget_continuation(transitions):
    run = await run_query(
        [Reply(content=[text("some")], output_tokens=2000), Reply(content=[text("more")], output_tokens=8000)],
        prompt="+10k write a long essay",
        token_budget=10_000,
    )
    assert transitions == [None, "token_budget_continuation"]
    nudge = _last_text(run.requests[1])
    assert "2,000 of the 10,000-token budget" in nudge
    assert run.terminal.reason == "completed"


async def test_token_budget_stops_when_diminishing(transitions):
    small = [Reply(content=[text("a bit")], output_tokens=100) for _ in range(5)]
    run = await run_query(small, token_budget=100_000)
    # Three continuations, then two deltas under 500 tokens: diminishing returns.
    assert transitions == [None, *["token_budget_continuation"] * 3]
    assert run.terminal.reason == "completed"
    assert run.transport.script.remaining == 1


async def test_subagents_never_continue_for_a_budget(transitions):
    run = await run_query([Reply(content=[text("x")], output_tokens=10)], token_budget=10_000, query_source="agent:explore")
    assert transitions == [None]
    assert run.terminal.reason == "completed"


def test_every_continue_reason_is_covered():
    assert COVERED == set(CONTINUE_REASONS)
