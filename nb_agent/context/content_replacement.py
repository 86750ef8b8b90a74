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
from nb_agent.context.tool_results import iter_tool_results, rewrite_tool_results, tool_result_ids
from nb_agent.messages import ContentBlock

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


def is_replaceable(tool_name: str, content: str | list[ContentBlock], skip_tool_names: frozenset[str] | set[str]) -> bool:
    """Whether a result may be replaced by a preview: text only (images cannot be
    previewed), not already a preview, and not from a tool that is never persisted."""
    if tool_name in skip_tool_names:
        return False
    if not isinstance(content, str) and any(b.get("type") != "text" for b in content):
        return False
    return not is_persisted_preview(content if isinstance(content, str) else "")


def decide_batch(
    members: list[tuple[str, str | list[ContentBlock]]],
    state: ContentReplacementState,
    budget_chars: int,
    *,
    results_dir: Path | None,
) -> list[ContentReplacementRecord]:
    """Decide the fresh results among ``members`` (the replaceable results of one batch,
    ``(tool_use_id, content)`` in order): while the batch is over budget, the largest fresh
    ones (older first on ties) are persisted and replaced by a preview. ``state`` is
    updated; returns one record per fresh result."""
    fresh = [(tool_use_id, content) for tool_use_id, content in members if tool_use_id not in state.seen_ids]
    if not fresh:
        return []
    total = sum(content_size(content) for _, content in members)
    order = sorted(range(len(fresh)), key=lambda i: (-content_size(fresh[i][1]), i))
    replaced: set[str] = set()
    for i in order:
        if total <= budget_chars:
            break
        tool_use_id, content = fresh[i]
        size = content_size(content)
        if size <= MIN_REPLACEABLE_CHARS:
            continue
        text = persist_or_truncate(content, tool_use_id=tool_use_id, results_dir=results_dir)
        if len(text) >= size:
            continue
        state.replacements[tool_use_id] = text
        replaced.add(tool_use_id)
        total += len(text) - size
    records = []
    for tool_use_id, _ in fresh:
        state.seen_ids.add(tool_use_id)
        text = state.replacements.get(tool_use_id) if tool_use_id in replaced else None
        records.append(ContentReplacementRecord(tool_use_id=tool_use_id, replacement=text))
    return records


def enforce_tool_result_budget(
    messages: list[Any],
    state: ContentReplacementState,
    budget_chars: int,
    skip_tool_names: Iterable[str] = (),
    *,
    results_dir: Path | None = None,
) -> tuple[list[Any], list[ContentReplacementRecord]]:
    """Apply earlier decisions and decide fresh results; returns (messages, new decisions).

    ``state`` is updated in place. Replaced results are persisted under ``results_dir``
    (a tool-results directory); when that is impossible the replacement is the result's
    head and tail with a note instead. This scans the whole window; the session applies
    the same decisions incrementally (:class:`~nb_agent.context.result_rewrites.ToolResultRewrites`).
    """
    skip = frozenset(skip_tool_names)
    refs = list(iter_tool_results(messages))
    contents: dict[str, str] = {}
    fresh_groups: dict[str, None] = {}
    for ref in refs:
        if ref.tool_use_id in state.replacements:
            contents[ref.tool_use_id] = state.replacements[ref.tool_use_id]
        elif ref.tool_use_id not in state.seen_ids and is_replaceable(ref.tool_name, ref.content, skip):
            fresh_groups[ref.group] = None
    members: dict[str, list[tuple[str, str | list[ContentBlock]]]] = {group: [] for group in fresh_groups}
    for r in refs:
        if r.group in members and r.tool_use_id not in state.replacements and is_replaceable(r.tool_name, r.content, skip):
            members[r.group].append((r.tool_use_id, r.content))
    decided: list[ContentReplacementRecord] = []
    for group in fresh_groups:
        records = decide_batch(members[group], state, budget_chars, results_dir=results_dir)
        contents.update({r.tool_use_id: r.replacement for r in records if r.replacement is not None})
        decided += records
    return rewrite_tool_results(messages, contents, refs), decided


def reconstruct_content_replacement_state(
    messages: list[Any],
    records: Iterable[ContentReplacementRecord],
    inherited_replacements: Mapping[str, str] | None = None,
    *,
    present: set[str] | None = None,
) -> ContentReplacementState:
    """Rebuild the state of a resumed session from its transcript decisions.

    Only results still present in ``messages`` matter (``present``: their ids, when the
    caller has them). A result with no record was never decided (nothing was sent after
    it) and stays fresh. ``inherited_replacements`` (a parent's, for a resumed fork) apply
    to results the records do not mention.
    """
    present = tool_result_ids(messages) if present is None else present
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
    "decide_batch",
    "enforce_tool_result_budget",
    "is_replaceable",
    "reconstruct_content_replacement_state",
    "records_from_entries",
]
