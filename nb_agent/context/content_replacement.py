"""The content-replacement budget (SPEC §3, seed 000 §9.5): the last line of defence
against tool output piling up in the window.

Before every model call, the tool results of each API user turn (one batch of results)
are held to ``budget_chars``. Each result is decided once, the first time it is seen:

- **already replaced**: the same replacement text is put in again (byte-identical);
- **frozen** (seen and kept): left alone forever — changing it would break the prompt cache;
- **fresh**: if the batch is over budget, the largest fresh results (older first on ties)
  are persisted to the session's tool-results directory and replaced by a preview, until
  the batch fits.

Decisions are written to the transcript so a resumed session rebuilds the same state and
sends byte-identical history; forks (subagents sharing the parent's cache) clone it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nb_agent.context.tool_result_storage import (
    PREVIEW_SIZE_BYTES,
    content_size,
    is_persisted_preview,
    persist_or_truncate,
)
from nb_agent.context.tool_results import ToolResultIndex, ToolResultRef, iter_tool_results, rewrite_tool_results

MIN_REPLACEABLE_CHARS = 2 * PREVIEW_SIZE_BYTES
"""Results this small are never replaced: a preview would save nothing."""

TRANSCRIPT_KIND = "content_replacement"


@dataclass(kw_only=True)
class ContentReplacementState:
    seen_ids: set[str] = field(default_factory=set)
    replacements: dict[str, str] = field(default_factory=dict)

    def clone(self) -> ContentReplacementState:
        """An independent copy (forks make the parent's decisions, then diverge)."""
        return ContentReplacementState(seen_ids=set(self.seen_ids), replacements=dict(self.replacements))


@dataclass(frozen=True, kw_only=True)
class ContentReplacementRecord:
    """One decision, as written to the transcript."""

    tool_use_id: str
    replacement: str | None = None
    """The text sent instead of the result; None means the result was kept as is."""

    def to_json(self) -> dict[str, Any]:
        return {"tool_use_id": self.tool_use_id, "replacement": self.replacement}

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> ContentReplacementRecord:
        return cls(tool_use_id=str(raw["tool_use_id"]), replacement=raw.get("replacement"))


def _is_candidate(ref: ToolResultRef, skip_tool_names: frozenset[str] | set[str]) -> bool:
    if ref.tool_name in skip_tool_names:
        return False
    content = ref.content
    if not isinstance(content, str) and any(b.get("type") != "text" for b in content):
        return False  # images cannot be previewed
    return not is_persisted_preview(content if isinstance(content, str) else "")


def enforce_tool_result_budget(
    messages: list[Any],
    state: ContentReplacementState,
    budget_chars: int,
    skip_tool_names: Iterable[str] = (),
    *,
    results_dir: Path | None = None,
    index: ToolResultIndex | None = None,
) -> tuple[list[Any], list[ContentReplacementRecord]]:
    """Apply earlier decisions and decide fresh results; returns (messages, new decisions).

    ``state`` is updated in place. Replaced results are persisted under ``results_dir``
    (a tool-results directory); when that is impossible the replacement is the result's
    head and tail with a note instead. ``index`` (kept across calls) spares rescanning
    the part of the history seen before.
    """
    skip = frozenset(skip_tool_names)
    refs = index.refs(messages) if index is not None else list(iter_tool_results(messages))
    contents: dict[str, str] = {}
    decided: list[ContentReplacementRecord] = []
    fresh_groups: set[str] = set()
    replacements, seen = state.replacements, state.seen_ids  # locals: this loop runs over every result
    for ref in refs:
        tool_use_id = ref.tool_use_id
        if tool_use_id in replacements:
            contents[tool_use_id] = replacements[tool_use_id]
        elif tool_use_id not in seen and _is_candidate(ref, skip):
            fresh_groups.add(ref.group)
    for refs_of_group in _candidate_groups(refs, fresh_groups, state, skip).values():
        fresh = [r for r in refs_of_group if r.tool_use_id not in state.seen_ids]
        if not fresh:
            continue
        total = sum(content_size(r.content) for r in refs_of_group)
        order = sorted(range(len(fresh)), key=lambda i: (-content_size(fresh[i].content), i))
        replaced: set[str] = set()
        for i in order:
            if total <= budget_chars:
                break
            ref = fresh[i]
            size = content_size(ref.content)
            if size <= MIN_REPLACEABLE_CHARS:
                continue
            text = persist_or_truncate(ref.content, tool_use_id=ref.tool_use_id, results_dir=results_dir)
            if len(text) >= size:
                continue
            state.replacements[ref.tool_use_id] = text
            contents[ref.tool_use_id] = text
            replaced.add(ref.tool_use_id)
            total += len(text) - size
        for ref in fresh:
            state.seen_ids.add(ref.tool_use_id)
            text = state.replacements.get(ref.tool_use_id) if ref.tool_use_id in replaced else None
            decided.append(ContentReplacementRecord(tool_use_id=ref.tool_use_id, replacement=text))
    return rewrite_tool_results(messages, contents, refs), decided


def _candidate_groups(
    refs: list[ToolResultRef], groups: set[str], state: ContentReplacementState, skip: frozenset[str]
) -> dict[str, list[ToolResultRef]]:
    """The replaceable results of the batches in ``groups`` (only a batch with a fresh
    result needs deciding; the rest are settled), batches in order of first appearance."""
    out: dict[str, list[ToolResultRef]] = {}
    if not groups:
        return out
    for ref in refs:
        if ref.group in groups and ref.tool_use_id not in state.replacements and _is_candidate(ref, skip):
            out.setdefault(ref.group, []).append(ref)
    return out


def reconstruct_content_replacement_state(
    messages: list[Any],
    records: Iterable[ContentReplacementRecord],
    inherited_replacements: Mapping[str, str] | None = None,
) -> ContentReplacementState:
    """Rebuild the state of a resumed session from its transcript decisions.

    Only results still present in ``messages`` matter. A result with no record was never
    decided (nothing was sent after it) and stays fresh. ``inherited_replacements`` (a
    parent's, for a resumed fork) apply to results the records do not mention.
    """
    present = {ref.tool_use_id for ref in iter_tool_results(messages)}
    state = ContentReplacementState()
    for record in records:
        if record.tool_use_id not in present:
            continue
        state.seen_ids.add(record.tool_use_id)
        if record.replacement is not None:
            state.replacements[record.tool_use_id] = record.replacement
        else:
            state.replacements.pop(record.tool_use_id, None)
    for tool_use_id, text in (inherited_replacements or {}).items():
        if tool_use_id in present and tool_use_id not in state.seen_ids:
            state.seen_ids.add(tool_use_id)
            state.replacements[tool_use_id] = text
    return state


def records_from_entries(entries: Iterable[Mapping[str, Any]]) -> list[ContentReplacementRecord]:
    """The decisions in ``content_replacement`` transcript entries, in order."""
    out: list[ContentReplacementRecord] = []
    for entry in entries:
        for raw in entry.get("records", []):
            try:
                out.append(ContentReplacementRecord.from_json(raw))
            except (KeyError, TypeError):
                continue
    return out


__all__ = [
    "ContentReplacementRecord",
    "ContentReplacementState",
    "MIN_REPLACEABLE_CHARS",
    "enforce_tool_result_budget",
    "reconstruct_content_replacement_state",
    "records_from_entries",
]
