"""The session's result rewrites are incremental and decide exactly what the whole-window
tiers decide: turn after turn, fed back their own output (as the loop does) or the
original history (as the engine does at a new submission), through cuts at the front
(compaction, snip) and at the end (a rewind), with late and duplicate ids."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from nb_agent.context.content_replacement import ContentReplacementState, enforce_tool_result_budget
from nb_agent.context.images import ImageWindowState
from nb_agent.context.microcompact import MicrocompactState, clear_gain, clearable_tokens, microcompact_messages
from nb_agent.context.result_rewrites import ToolResultRewrites
from nb_agent.messages import AssistantMessage, UserMessage, tool_result_message

COMPACTABLE = frozenset({"Read", "Grep"})
KEEP = 2
BUDGET = 40_000


def _turn(rng: random.Random, n: int) -> list:
    """A response calling one or two tools, then their results; sometimes an orphan
    result, a result delivered twice or one that arrives before its call."""
    ids = [f"t{n}.{k}" for k in range(rng.randrange(1, 3))]
    names = [rng.choice(["Read", "Grep", "Fetch"]) for _ in ids]
    uses = [{"type": "tool_use", "id": i, "name": name, "input": {}} for i, name in zip(ids, names)]
    results = [tool_result_message(i, i[-1] * rng.choice([10, 3_000, 30_000])) for i in ids]
    if rng.random() < 0.1:
        results.append(tool_result_message(f"late{n}", "x" * 5_000))
    if rng.random() < 0.1:
        results.append(results[0])
    if rng.random() < 0.1:
        return [*results, AssistantMessage(content=uses, message_id=f"m{n}", model="m")]
    return [AssistantMessage(content=uses, message_id=f"m{n}", model="m"), *results]


def _rewrites() -> ToolResultRewrites:
    return ToolResultRewrites(
        replacement=ContentReplacementState(),
        microcompact=MicrocompactState(),
        images=ImageWindowState(),
        compactable_tools=COMPACTABLE,
    )


def _reference(window: list, budget: ContentReplacementState, micro: MicrocompactState, trigger, results_dir: Path):
    budgeted, decided = enforce_tool_result_budget(window, budget, BUDGET, {"Read"}, results_dir=results_dir)
    tokens = clearable_tokens(budgeted, micro, compactable_tools=COMPACTABLE, keep_recent=KEEP)
    result = microcompact_messages(budgeted, micro, compactable_tools=COMPACTABLE, keep_recent=KEEP, trigger=trigger)
    return result.messages, decided, result.newly_cleared, tokens


@pytest.mark.parametrize("seed", range(30))
def test_the_same_decisions_as_the_whole_window_tiers(seed: int, tmp_path: Path):
    rng = random.Random(seed)
    budget, micro = ContentReplacementState(), MicrocompactState()
    rewrites = _rewrites()
    original: list = [UserMessage(content="go")]  # the window's original messages
    reference_out: list = list(original)
    incremental_out: list = list(original)
    for n in range(40):
        added = _turn(rng, n)
        roll = rng.random()
        if roll < 0.08:  # a compaction or a snip: the front goes
            cut = rng.randrange(1, 6)
            original, reference_out, incremental_out = original[cut:], reference_out[cut:], incremental_out[cut:]
        elif roll < 0.14 and len(original) > 4:  # a rewind: the end goes
            cut = rng.randrange(1, 4)
            original, reference_out, incremental_out = original[:-cut], reference_out[:-cut], incremental_out[:-cut]
        original = [*original, *added]
        fed_original = rng.random() < 0.25  # a new submission starts from the engine's history
        reference_in = original if fed_original else [*reference_out, *added]
        incremental_in = original if fed_original else [*incremental_out, *added]
        trigger = "time" if rng.random() < 0.2 else None

        reference_out, ref_decided, ref_cleared, ref_tokens = _reference(reference_in, budget, micro, trigger, tmp_path)
        rewrites.sync(incremental_in)
        decided = rewrites.decide_budget(budget_chars=BUDGET, skip=frozenset({"Read"}), results_dir=tmp_path)
        assert rewrites.clearable_tokens(KEEP) == ref_tokens
        cleared = rewrites.clear(KEEP)[0] if trigger else []
        incremental_out = rewrites.window()

        assert [m.content for m in incremental_out] == [m.content for m in reference_out]
        assert [m.uuid for m in incremental_out] == [m.uuid for m in reference_out]
        assert decided == ref_decided and cleared == ref_cleared
    assert (rewrites.replacement, rewrites.microcompact) == (budget, micro)


def test_a_growing_window_is_scanned_once_and_untouched_messages_keep_their_identity(tmp_path: Path):
    rng = random.Random(7)
    rewrites = _rewrites()
    window: list = [UserMessage(content="go")]
    rewrites.sync(window)
    scanned_before = rewrites.scanned
    for n in range(60):
        added = [AssistantMessage(content=[{"type": "tool_use", "id": f"u{n}", "name": "Grep", "input": {}}], message_id=f"m{n}", model="m")]
        added.append(tool_result_message(f"u{n}", "r" * rng.choice([100, 2_000])))
        previous = window
        rewrites.sync([*previous, *added])
        rewrites.decide_budget(budget_chars=BUDGET, skip=frozenset(), results_dir=tmp_path)
        if n % 20 == 19:
            rewrites.clear(KEEP)
        window = rewrites.window()
        assert rewrites.scanned - scanned_before == len(added)  # only what was added
        scanned_before = rewrites.scanned
        untouched = [i for i, m in enumerate(previous) if m is window[i]]
        assert len(untouched) >= len(previous) - (len(previous) if n % 20 == 19 else 0)
    assert rewrites.rebuilds == 0


def test_a_tool_use_id_seen_before_rebuilds_the_scan(tmp_path: Path):
    rewrites = _rewrites()
    use = AssistantMessage(content=[{"type": "tool_use", "id": "u1", "name": "Grep", "input": {}}], message_id="m1", model="m")
    window = [UserMessage(content="go"), use, tool_result_message("u1", "r" * 3_000)]
    rewrites.sync(window)
    again = AssistantMessage(content=[{"type": "tool_use", "id": "u1", "name": "Fetch", "input": {}}], message_id="m2", model="m")
    rewrites.sync([*rewrites.window(), again, tool_result_message("u1", "s")])
    assert rewrites.rebuilds == 1
    assert rewrites.clearable_tokens(0) == 0  # both results now belong to Fetch, which is not compactable


def test_a_rewind_then_new_messages_rebuild_and_forget_what_was_cut(tmp_path: Path):
    rewrites = _rewrites()
    uses = [AssistantMessage(content=[{"type": "tool_use", "id": f"u{n}", "name": "Grep", "input": {}}], message_id=f"m{n}", model="m") for n in range(8)]
    results = [tool_result_message(f"u{n}", "r" * 3_000) for n in range(8)]
    history = [UserMessage(content="go")] + [m for pair in zip(uses, results) for m in pair]
    rewrites.sync(history)
    assert rewrites.clearable_tokens(KEEP) > 0
    kept = history[:5]  # back to after the second result
    rewrites.sync([*kept, UserMessage(content="again")])
    assert rewrites.rebuilds == 1
    assert rewrites.clearable_tokens(0) == 2 * clear_gain("r" * 3_000)
    assert rewrites.window()[:5] == kept
