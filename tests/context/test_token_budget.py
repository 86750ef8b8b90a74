"""Token budget continuation (SPEC §4): "+50k" or "use about 50k tokens" keeps the agent
going while under 90 % of the budget and not diminishing; subagents never continue."""

from __future__ import annotations

import pytest

from nb_agent.loop.token_budget import BudgetTracker, parse_token_budget
from nb_agent.testing import Reply, ScriptedTransport, text
from nb_agent.testing.collect import collect
from nb_agent.testing.harness import run_query


@pytest.mark.parametrize(
    ("prompt", "budget"),
    [
        ("refactor this +50k", 50_000),
        ("+2.5k go", 2_500),
        ("+1m", 1_000_000),
        ("please use about 50k tokens on it", 50_000),
        ("spend roughly 20000 tokens", 20_000),
        ("use up to 3k tokens", 3_000),
        ("fix the bug", None),
        ("a+50k b", None),
        ("+0k", None),
    ],
)
def test_parse(prompt, budget):
    assert parse_token_budget(prompt) == budget


def _answer(tokens: int) -> Reply:
    return Reply(content=[text("work " * 4)], output_tokens=tokens)


async def test_continues_until_90_percent_of_the_budget(make_engine):
    transport = ScriptedTransport([_answer(300)] * 3)
    engine = make_engine(transport)
    out = await collect(engine, "write the report +1k")
    assert out.result.subtype == "success"
    assert len(transport.requests) == 3, "300, 600, then 900 >= 90% of 1,000 stops"
    nudges = [m for m in out.of_type("user") if m.is_meta]
    assert len(nudges) == 2 and "of the 1,000-token budget" in nudges[0].content
    assert "(30%)" in nudges[0].content and "(60%)" in nudges[1].content


async def test_stops_when_continuations_diminish(make_engine):
    transport = ScriptedTransport([_answer(2_000), _answer(2_000), _answer(2_000), _answer(2_000), _answer(100), _answer(100), _answer(9_999)])
    engine = make_engine(transport)
    out = await collect(engine, "+100k")
    assert out.result.subtype == "success"
    assert len(transport.requests) == 6, "two consecutive deltas under 500 after 3+ continuations"


async def test_no_budget_no_continuation(make_engine):
    transport = ScriptedTransport([_answer(10)])
    out = await collect(make_engine(transport), "just answer")
    assert out.result.subtype == "success" and len(transport.requests) == 1


async def test_subagents_never_continue():
    run = await run_query([_answer(10)], prompt="+50k", token_budget=50_000, query_source="agent:default")
    assert run.terminal.reason == "completed" and len(run.requests) == 1
    main = await run_query([_answer(10), _answer(50_000)], prompt="+50k", token_budget=50_000)
    assert main.terminal.reason == "completed" and len(main.requests) == 2


def test_tracker_for_subagents_is_inert():
    tracker = BudgetTracker(budget=10_000)
    assert tracker.should_continue(10, is_subagent=True) is False
    assert tracker.continuation_count == 0
