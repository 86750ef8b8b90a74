"""The context steps remember what they scanned: ``ToolResultIndex`` finds the same
results as a full scan, and the budget and microcompact decide the same with it as
without it, turn after turn."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from nb_agent.context.content_replacement import ContentReplacementState, enforce_tool_result_budget
from nb_agent.context.microcompact import MicrocompactState, clearable_tokens, microcompact_messages
from nb_agent.context.tool_results import ToolResultIndex, iter_tool_results
from nb_agent.messages import AssistantMessage, UserMessage, tool_result_message


def _turn(rng: random.Random, n: int) -> list:
    """A response calling one or two tools, then their results, sometimes an orphan,
    a duplicate id or a result that arrives before its call."""
    ids = [f"t{rng.randrange(3 * n + 5)}" for _ in range(rng.randrange(1, 3))]
    names = [rng.choice(["Read", "Grep", "Fetch"]) for _ in ids]
    uses = [{"type": "tool_use", "id": i, "name": name, "input": {}} for i, name in zip(ids, names)]
    results = [tool_result_message(i, i[-1] * rng.choice([10, 3_000, 30_000])) for i in ids]
    if rng.random() < 0.1:
        results.append(tool_result_message(f"late{n}", "x" * 5_000))
    if rng.random() < 0.1:
        return [*results, AssistantMessage(content=uses, message_id=f"m{n}", model="m")]
    return [AssistantMessage(content=uses, message_id=f"m{n}", model="m"), *results]


def _steps(seed: int) -> list[tuple[int, list]]:
    """Turn after turn: (how many messages to drop from the front, messages appended).
    Mostly growth; now and then a cut, as a snip or a compaction makes."""
    rng = random.Random(seed)
    steps = []
    for n in range(30):
        cut = rng.randrange(1, 6) if rng.random() < 0.1 else 0
        steps.append((cut, _turn(rng, n)))
    return steps


@pytest.mark.parametrize("seed", range(20))
def test_the_index_finds_what_a_full_scan_finds(seed: int):
    index = ToolResultIndex()
    window: list = [UserMessage(content="go")]
    for cut, added in _steps(seed):
        window = [*window[cut:], *added]
        assert index.refs(window) == list(iter_tool_results(window))


@pytest.mark.parametrize("seed", range(10))
def test_budget_decides_the_same_with_the_index(seed: int, tmp_path: Path):
    full_state, indexed_state, index = ContentReplacementState(), ContentReplacementState(), ToolResultIndex()
    full: list = [UserMessage(content="go")]
    fast: list = list(full)
    for cut, added in _steps(seed):
        # each side carries its own budgeted window into the next turn, as the loop does
        full, full_decided = enforce_tool_result_budget([*full[cut:], *added], full_state, 40_000, {"Read"}, results_dir=tmp_path)
        fast, fast_decided = enforce_tool_result_budget(
            [*fast[cut:], *added], indexed_state, 40_000, {"Read"}, results_dir=tmp_path, index=index
        )
        assert [m.content for m in fast] == [m.content for m in full]
        assert fast_decided == full_decided
    assert indexed_state == full_state


@pytest.mark.parametrize("seed", range(10))
def test_microcompact_clears_the_same_with_the_index(seed: int):
    full_state, indexed_state, index = MicrocompactState(), MicrocompactState(), ToolResultIndex()
    rng = random.Random(seed)
    options = {"compactable_tools": {"Read", "Grep"}, "keep_recent": 2}
    full: list = [UserMessage(content="go")]
    fast: list = list(full)
    for cut, added in _steps(seed):
        full, fast = [*full[cut:], *added], [*fast[cut:], *added]
        assert clearable_tokens(fast, indexed_state, **options, index=index) == clearable_tokens(full, full_state, **options)
        trigger = "time" if rng.random() < 0.2 else None
        full_result = microcompact_messages(full, full_state, **options, trigger=trigger)
        fast_result = microcompact_messages(fast, indexed_state, **options, trigger=trigger, index=index)
        assert fast_result == full_result
        full, fast = full_result.messages, fast_result.messages
    assert indexed_state.cleared_ids == full_state.cleared_ids
