"""Microcompact (SPEC §4, seed 001 §2.7): clear old tool results, keep their structure.

Results of the compactable tools (Read, Bash, Grep, …) other than the most recent few
are replaced by ``[Old tool result content cleared]`` — the tool_use and its result stay,
so the model knows the call happened and can repeat it. Two triggers:

- **time-based**: the last assistant message is older than 60 minutes. The prompt cache
  has expired by then, so rewriting old content costs nothing extra.
- **pressure**: the window has reached the warning threshold (effective − 20,000). This
  stands in for Claude Code's cache-editing mode (an API feature nb_agent does not use):
  one bulk clear that often spares an autocompact summary call.

A cleared result stays cleared: ids are kept in :class:`MicrocompactState` (and in the
transcript), and re-applied on every call, so the history sent is stable across turns and
across a resume. Image results count as 2,000 tokens each when measuring.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Literal

from nb_agent.context.tokens import estimate_content_tokens, estimate_text_tokens
from nb_agent.context.tool_results import iter_tool_results, rewrite_tool_results
from nb_agent.messages import ContentBlock

CLEARED_MESSAGE = "[Old tool result content cleared]"
TRANSCRIPT_KIND = "microcompact"

Trigger = Literal["time", "pressure"]


@dataclass(kw_only=True)
class MicrocompactState:
    cleared_ids: set[str] = field(default_factory=set)

    def clone(self) -> MicrocompactState:
        return MicrocompactState(cleared_ids=set(self.cleared_ids))


@dataclass(frozen=True, kw_only=True)
class MicrocompactResult:
    messages: list[Any]
    newly_cleared: list[str] = field(default_factory=list)
    freed_tokens: dict[int, int] = field(default_factory=dict)
    """Message index → tokens the new clears removed from it."""
    trigger: Trigger | None = None


def _parse_time(stamp: str) -> datetime | None:
    try:
        when = datetime.fromisoformat(stamp)
    except (TypeError, ValueError):
        return None
    return when if when.tzinfo else when.replace(tzinfo=timezone.utc)


def minutes_since_last_assistant(messages: list[Any], now: datetime) -> float | None:
    for message in reversed(messages):
        if message.type == "assistant" and not message.is_api_error_message:
            when = _parse_time(message.timestamp)
            return None if when is None else (now - when).total_seconds() / 60
    return None


def clear_gain(content: str | list[ContentBlock]) -> int:
    """Tokens clearing a result of ``content`` frees (≤ 0: nothing to gain)."""
    return estimate_content_tokens(content) - estimate_text_tokens(CLEARED_MESSAGE)


def microcompact_messages(
    messages: list[Any],
    state: MicrocompactState,
    *,
    compactable_tools: Iterable[str],
    keep_recent: int = 5,
    trigger: Trigger | None = None,
) -> MicrocompactResult:
    """Re-apply earlier clears; with a ``trigger``, clear all but the ``keep_recent``
    newest compactable results too. ``state`` is updated in place. This scans the whole
    window; the session applies the same decisions incrementally
    (:class:`~nb_agent.context.result_rewrites.ToolResultRewrites`)."""
    tools = frozenset(compactable_tools)
    all_refs = list(iter_tool_results(messages))
    refs = [r for r in all_refs if r.tool_name in tools]
    contents: dict[str, str] = {r.tool_use_id: CLEARED_MESSAGE for r in refs if r.tool_use_id in state.cleared_ids}
    newly: list[str] = []
    freed: dict[int, int] = {}
    if trigger is not None:
        live = [r for r in refs if r.tool_use_id not in state.cleared_ids and r.content != CLEARED_MESSAGE]
        old = live[: max(0, len(live) - max(0, keep_recent))]
        for ref in old:
            tokens = clear_gain(ref.content)
            if tokens <= 0:
                continue
            state.cleared_ids.add(ref.tool_use_id)
            contents[ref.tool_use_id] = CLEARED_MESSAGE
            newly.append(ref.tool_use_id)
            freed[ref.message_index] = freed.get(ref.message_index, 0) + tokens
    return MicrocompactResult(
        messages=rewrite_tool_results(messages, contents, all_refs),
        newly_cleared=newly,
        freed_tokens=freed,
        trigger=trigger if newly else None,
    )


def clearable_tokens(
    messages: list[Any],
    state: MicrocompactState,
    *,
    compactable_tools: Iterable[str],
    keep_recent: int,
) -> int:
    """Tokens a triggered microcompact would free now."""
    tools = frozenset(compactable_tools)
    live = [
        r
        for r in iter_tool_results(messages)
        if r.tool_name in tools and r.tool_use_id not in state.cleared_ids and r.content != CLEARED_MESSAGE
    ]
    old = live[: max(0, len(live) - max(0, keep_recent))]
    return sum(max(0, clear_gain(r.content)) for r in old)


__all__ = [
    "CLEARED_MESSAGE",
    "MicrocompactResult",
    "MicrocompactState",
    "clear_gain",
    "clearable_tokens",
    "microcompact_messages",
    "minutes_since_last_assistant",
]
