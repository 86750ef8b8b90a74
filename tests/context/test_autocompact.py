"""Autocompact (SPEC §4): a model-written summary replaces the history when the window
reaches effective − 13,000 tokens; a failed summary never loses history and trips a
circuit breaker after three in a row; the blocking limit ends the run only when autocompact is
off or broken."""

from __future__ import annotations

import json

from nb_agent.context.compact import COMPACT_PROMPT
from nb_agent.context.config import ContextConfig
from nb_agent.messages import messages_after_compact_boundary
from nb_agent.testing import ErrorReply, Reply, text, tool_use
from nb_agent.testing.collect import assert_history_invariant, assert_tool_result_invariant, collect

# 60k window, 64k max output: effective 40k, autocompact at 27k, blocking at 37k tokens.
SMALL = dict(context_window=60_000, microcompact=False)


def _calls(n: int, chars: int = 16_000) -> list[Reply]:
    turns = [Reply(content=[tool_use("Fetch", {"chars": chars, "label": f"r{i}"}, id=f"t{i}")]) for i in range(n)]
    return [*turns, Reply(content=[text("all fetched")])]


def _result_ids(request: dict) -> list[str]:
    return [b["tool_use_id"] for m in request["messages"] for b in m["content"] if b.get("type") == "tool_result"]


async def test_the_window_is_summarized_and_the_recent_tail_kept(make_engine, sized_tool, fake_model):
    model = fake_model(_calls(10), summary_text="The user wants ten fetches; r0..r6 are done.")
    engine = make_engine(model.transport(), context=ContextConfig(**SMALL, keep_recent_tokens=5_000), tools=[sized_tool("Fetch")])
    out = await collect(engine, "fetch ten things")
    assert out.result.subtype == "success", out.result
    [boundary] = out.of_type("compact_boundary")
    assert boundary.trigger == "auto" and boundary.pre_tokens >= 27_000
    assert "r0..r6 are done" in boundary.summary

    [summary_request] = model.summary_requests
    # Asked as the conversation's own next request, so it reads the conversation's cache:
    # same system blocks and tools, an earlier request's messages, then the prompt.
    first_main = model.main_requests[0]
    assert summary_request["system"] == first_main["system"] and summary_request["tools"] == first_main["tools"]
    assert summary_request["messages"][-1]["content"][-1]["text"].startswith(COMPACT_PROMPT)
    head = _plain(summary_request["messages"][:-1])
    assert any(_plain(r["messages"][: len(head)]) == head for r in model.main_requests), "a prefix the conversation sent"

    after = next(r for r in model.main_requests if "r0..r6 are done" in json.dumps(r))
    sent = json.dumps(after["messages"])
    assert "This session is being continued from a previous conversation" in sent
    kept = _result_ids(after)
    assert kept == [f"t{i}" for i in range(int(kept[0][1:]), int(kept[-1][1:]) + 1)], "a contiguous recent tail"
    assert "t0" not in kept, "summarized results are not sent again"
    for request in model.main_requests:
        assert_tool_result_invariant(request["messages"])
    assert_history_invariant(engine.messages)
    window = messages_after_compact_boundary(engine.messages)
    assert window[0] is boundary and [m for m in window if m.type == "user" and m.tool_result_ids][0].tool_result_ids == [kept[0]]


def _plain(messages: list[dict]) -> list[dict]:
    return [{**m, "content": [{k: v for k, v in b.items() if k != "cache_control"} for b in m["content"]]} for m in messages]


async def test_tracking_resets_so_a_long_run_compacts_again(make_engine, sized_tool, fake_model):
    model = fake_model(_calls(24))
    engine = make_engine(model.transport(), context=ContextConfig(**SMALL, keep_recent_tokens=5_000), tools=[sized_tool("Fetch")])
    out = await collect(engine, "fetch many")
    assert out.result.subtype == "success", out.result
    assert len(out.of_type("compact_boundary")) == len(model.summary_requests) >= 3
    assert engine.context_manager.stats.compactions["auto"] == len(model.summary_requests)
    for request in model.main_requests:
        assert_tool_result_invariant(request["messages"])


async def test_failed_summaries_keep_history_and_trip_the_breaker(make_engine, sized_tool, fake_model):
    model = fake_model(_calls(12), summaries=[ErrorReply(status=500)] * 5)
    engine = make_engine(model.transport(), context=ContextConfig(**SMALL), tools=[sized_tool("Fetch")])
    out = await collect(engine, "fetch")
    assert len(model.summary_requests) == 3, "the breaker stops after three consecutive failures"
    # autocompact is on, so the seed's blocking_limit does not apply: the run goes on (the API's
    # prompt-too-long and the reactive compact handle a window that really is too big)
    assert out.result.terminal_reason == "completed"
    assert not [e for e in out.of_type("system") if e.subtype == "blocking_limit"]
    assert not out.of_type("compact_boundary")
    history_ids = [i for m in engine.messages if m.type == "user" for i in m.tool_result_ids]
    assert history_ids == [f"t{i}" for i in range(len(history_ids))] and len(history_ids) >= 9
    assert_history_invariant(engine.messages)
    entries = [json.loads(line) for line in engine.transcript_path.read_text().splitlines()]
    assert [e["consecutive_failures"] for e in entries if e["kind"] == "compaction_failed"] == [1, 2, 3]


async def test_an_empty_summary_counts_as_a_failure(make_engine, sized_tool, fake_model):
    model = fake_model(_calls(9), summaries=[Reply(content=[text("<summary>   </summary>")]), Reply(content=[text("<summary>fine</summary>")])])
    engine = make_engine(model.transport(), context=ContextConfig(**SMALL), tools=[sized_tool("Fetch")])
    out = await collect(engine, "fetch")
    assert out.result.subtype == "success", out.result
    assert len(model.summary_requests) == 2
    [boundary] = out.of_type("compact_boundary")
    assert boundary.summary.startswith("fine")


async def test_blocking_limit_when_autocompact_is_off(make_engine, sized_tool, fake_model):
    model = fake_model(_calls(12))
    engine = make_engine(model.transport(), context=ContextConfig(**SMALL, auto_compact=False), tools=[sized_tool("Fetch")])
    out = await collect(engine, "fetch")
    assert out.result.terminal_reason == "blocking_limit" and model.summary_requests == []
    assert engine.context_manager.stats.last_tokens >= engine.context_manager.thresholds("claude-sonnet-4-6").blocking
    assert_history_invariant(engine.messages)
    [notice] = [e for e in out.of_type("system") if e.subtype == "blocking_limit"]
    assert notice.level == "error"


async def test_manual_compact_with_instructions(make_engine, sized_tool, fake_model):
    model = fake_model(_calls(2), summary_text="Two fetches done.")
    engine = make_engine(model.transport(), tools=[sized_tool("Fetch")])
    await collect(engine, "fetch two")
    result = await engine.compact("Focus on the fetch labels.")
    assert result.boundary.trigger == "manual" and result.messages == [result.boundary]
    prompt = model.summary_requests[0]["messages"][-1]["content"][-1]["text"]
    assert prompt.endswith("Additional instructions from the user:\nFocus on the fetch labels.")
    assert engine.messages[-1] is result.boundary
    assert engine.context_manager.stats.compactions["manual"] == 1
    model.main.append(Reply(content=[text("continuing")]))
    await collect(engine, "what next?")
    last = json.dumps(model.main_requests[-1]["messages"])
    assert "Two fetches done." in last and "[r0]" not in last
    assert "Continue the conversation" not in last, "a manual summary does not tell the model to carry on"


async def test_a_failed_manual_compact_raises_and_keeps_history(make_engine, sized_tool, fake_model):
    import pytest

    from nb_agent.context.compact import CompactionError

    model = fake_model(_calls(1), summaries=[ErrorReply(status=529, error_type="overloaded_error")])
    engine = make_engine(model.transport(), tools=[sized_tool("Fetch")])
    await collect(engine, "fetch")
    before = list(engine.messages)
    with pytest.raises(CompactionError):
        await engine.compact()
    assert engine.messages == before
    with pytest.raises(CompactionError, match="Not enough messages"):
        await make_engine(model.transport(), tools=[]).compact()


async def test_stop_during_a_slow_summary_ends_the_run_promptly(make_engine, sized_tool, fake_model):
    import asyncio

    slow = Reply(content=[text("<summary>late</summary>")], stream_duration=600.0, chunk_size=1)  # far longer than the wait below
    model = fake_model(_calls(12), summaries=[slow])
    engine = make_engine(model.transport(), context=ContextConfig(**SMALL), tools=[sized_tool("Fetch")])
    task = asyncio.create_task(collect(engine, "fetch"))
    while not model.summary_requests:
        await asyncio.sleep(0.01)
    engine.interrupt()
    out = await asyncio.wait_for(task, 20)  # a loaded machine's bound: the summary alone would take 600 s
    assert out.result.terminal_reason == "aborted_streaming"
    assert not out.of_type("compact_boundary")
    assert_history_invariant(engine.messages)
