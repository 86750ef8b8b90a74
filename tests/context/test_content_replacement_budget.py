"""The content-replacement budget's decisions (SPEC §3, seed 000 §9.5): already replaced,
frozen, fresh; the largest fresh results go first; decisions are final."""

from __future__ import annotations

from pathlib import Path

from nb_agent.context.content_replacement import (
    ContentReplacementRecord,
    ContentReplacementState,
    enforce_tool_result_budget,
    reconstruct_content_replacement_state,
)
from nb_agent.context.tool_result_storage import PERSISTED_OUTPUT_TAG
from nb_agent.messages import AssistantMessage, UserMessage, normalize_for_api, tool_result_message


def batch(message_id: str, results: dict[str, tuple[str, int]]) -> list:
    """One response calling tools, then their results: {id: (tool name, result size)}."""
    uses = [{"type": "tool_use", "id": i, "name": name, "input": {}} for i, (name, _) in results.items()]
    out: list = [AssistantMessage(content=uses, message_id=message_id, model="m")]
    out += [tool_result_message(i, i[-1] * size) for i, (_, size) in results.items()]
    return out


def contents(messages: list) -> dict[str, str]:
    return {
        b["tool_use_id"]: b["content"]
        for m in messages
        if m.type == "user" and not isinstance(m.content, str)
        for b in m.content
        if b.get("type") == "tool_result"
    }


def test_largest_fresh_results_are_replaced_until_the_batch_fits(tmp_path: Path):
    messages = [UserMessage(content="go"), *batch("m1", {"t_a": ("Fetch", 30_000), "t_b": ("Fetch", 20_000), "t_c": ("Fetch", 10_000)})]
    state = ContentReplacementState()
    out, decided = enforce_tool_result_budget(messages, state, 40_000, results_dir=tmp_path)
    got = contents(out)
    assert got["t_a"].startswith(PERSISTED_OUTPUT_TAG) and str(tmp_path / "t_a.txt") in got["t_a"]
    assert got["t_b"] == "b" * 20_000 and got["t_c"] == "c" * 10_000
    assert (tmp_path / "t_a.txt").read_text() == "a" * 30_000
    assert [(r.tool_use_id, r.replacement is not None) for r in decided] == [("t_a", True), ("t_b", False), ("t_c", False)]
    assert state.seen_ids == {"t_a", "t_b", "t_c"} and set(state.replacements) == {"t_a"}
    # the input list is not modified
    assert contents(messages)["t_a"] == "a" * 30_000


def test_reapplying_is_byte_identical_and_decides_nothing_new(tmp_path: Path):
    messages = [UserMessage(content="go"), *batch("m1", {"t_a": ("Fetch", 30_000), "t_b": ("Fetch", 20_000)})]
    state = ContentReplacementState()
    first, _ = enforce_tool_result_budget(messages, state, 25_000, results_dir=tmp_path)
    again, decided = enforce_tool_result_budget(messages, state, 25_000, results_dir=tmp_path)
    assert decided == []
    assert normalize_for_api(again) == normalize_for_api(first)
    # applying to the already-budgeted window changes nothing either (the loop keeps it)
    third, decided = enforce_tool_result_budget(first, state, 25_000, results_dir=tmp_path)
    assert decided == [] and normalize_for_api(third) == normalize_for_api(first)


def test_frozen_results_are_never_replaced_later(tmp_path: Path):
    state = ContentReplacementState()
    old = [UserMessage(content="go"), *batch("m1", {"t_a": ("Fetch", 30_000)})]
    enforce_tool_result_budget(old, state, 40_000, results_dir=tmp_path)  # fits: frozen as is
    later = [*old, *batch("m2", {"t_b": ("Fetch", 35_000)})]
    out, decided = enforce_tool_result_budget(later, state, 40_000, results_dir=tmp_path)
    got = contents(out)
    assert got["t_a"] == "a" * 30_000, "a frozen result must never change (prompt cache)"
    assert got["t_b"] == "b" * 35_000, "each batch has its own budget"
    assert [r.tool_use_id for r in decided] == ["t_b"]


def test_a_budget_tighter_than_the_frozen_part_replaces_only_fresh_results(tmp_path: Path):
    state = ContentReplacementState()
    messages = [UserMessage(content="go"), *batch("m1", {"t_a": ("Fetch", 30_000)})]
    enforce_tool_result_budget(messages, state, 40_000, results_dir=tmp_path)
    state.seen_ids.add("t_a")
    both = [*messages, *batch("m2", {"t_b": ("Fetch", 30_000), "t_c": ("Fetch", 30_000)})]
    out, _ = enforce_tool_result_budget(both, state, 40_000, results_dir=tmp_path)
    got = contents(out)
    assert got["t_a"] == "a" * 30_000
    # equal sizes: the older one goes first, and one replacement is enough
    assert got["t_b"].startswith(PERSISTED_OUTPUT_TAG) and got["t_c"] == "c" * 30_000


def test_skipped_tools_and_small_results_are_never_replaced(tmp_path: Path):
    messages = [UserMessage(content="go"), *batch("m1", {"t_r": ("Read", 90_000), "t_s": ("Fetch", 3_000), "t_f": ("Fetch", 20_000)})]
    out, _ = enforce_tool_result_budget(messages, ContentReplacementState(), 10_000, {"Read"}, results_dir=tmp_path)
    got = contents(out)
    assert got["t_r"] == "r" * 90_000
    assert got["t_s"] == "s" * 3_000
    assert got["t_f"].startswith(PERSISTED_OUTPUT_TAG)


def test_without_a_results_directory_the_replacement_is_a_truncation_with_a_note():
    messages = [UserMessage(content="go"), *batch("m1", {"t_a": ("Fetch", 30_000)})]
    out, decided = enforce_tool_result_budget(messages, ContentReplacementState(), 10_000, results_dir=None)
    got = contents(out)["t_a"]
    assert "characters truncated: no session directory to persist the full output" in got
    assert len(got) < 5_000 and decided[0].replacement == got


def test_clone_is_independent():
    state = ContentReplacementState(seen_ids={"a"}, replacements={"a": "A"})
    twin = state.clone()
    twin.seen_ids.add("b")
    twin.replacements["b"] = "B"
    assert state.seen_ids == {"a"} and state.replacements == {"a": "A"}
    assert twin.replacements == {"a": "A", "b": "B"}


def test_reconstruct_keeps_present_results_and_leaves_undecided_ones_fresh(tmp_path: Path):
    messages = [UserMessage(content="go"), *batch("m1", {"t_a": ("Fetch", 30_000), "t_b": ("Fetch", 1_000)}), *batch("m2", {"t_c": ("Fetch", 30_000)})]
    records = [
        ContentReplacementRecord(tool_use_id="t_a", replacement="REPLACED A"),
        ContentReplacementRecord(tool_use_id="t_b"),
        ContentReplacementRecord(tool_use_id="t_gone", replacement="compacted away"),
    ]
    state = reconstruct_content_replacement_state(messages, records, inherited_replacements={"t_c": "FROM PARENT", "t_x": "?"})
    assert state.seen_ids == {"t_a", "t_b", "t_c"}
    assert state.replacements == {"t_a": "REPLACED A", "t_c": "FROM PARENT"}
    fresh_only = reconstruct_content_replacement_state(messages, records[:2])
    assert "t_c" not in fresh_only.seen_ids
    out, decided = enforce_tool_result_budget(messages, fresh_only, 10_000, results_dir=tmp_path)
    assert contents(out)["t_a"] == "REPLACED A"
    assert [r.tool_use_id for r in decided] == ["t_c"]


def test_an_unwritable_results_directory_degrades_to_truncation(tmp_path: Path):
    blocked = tmp_path / "tool-results"
    blocked.write_text("a file where the directory should be")
    messages = [UserMessage(content="go"), *batch("m1", {"t_a": ("Fetch", 30_000)})]
    out, decided = enforce_tool_result_budget(messages, ContentReplacementState(), 10_000, results_dir=blocked)
    got = contents(out)["t_a"]
    assert "characters truncated: could not persist the full output" in got and PERSISTED_OUTPUT_TAG not in got
    assert decided[0].replacement == got
