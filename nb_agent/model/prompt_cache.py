"""Prompt-cache breakpoints: each request reads the previous request's prefix from the cache.

The API caches the prefix of a request (tools, then system, then messages) up to a block
marked ``cache_control``; a later request whose prefix is identical up to a marked block
reads it at a tenth of the input price. A hit is looked for at the marked blocks and up to
20 blocks before each of them, and a request may mark at most 4 blocks.

So a request carries (SPEC §6, Claude Code's placement):

1. the end of the static system prompt (marked by :func:`nb_agent.prompts.build_system_prompt`),
   shared by every session with the same tools and prompt;
2. the end of the message that ended the *previous* request (the last message before the
   latest assistant turn): exactly where that request wrote its cache entry, so the hit does
   not depend on the 20-block lookback however many tool calls the turn made;
3. the end of the last message: written now, read by the next request.

Everything before these markers must stay byte-identical between requests of a session:
per-request text (reminders, timestamps) goes only into the newest message.

``DISABLE_PROMPT_CACHING`` (Claude Code's variable) or ``EngineOptions.prompt_caching =
False`` removes every marker.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

MAX_BREAKPOINTS = 4
LOOKBACK_BLOCKS = 20
"""How many blocks before a breakpoint the API looks for an earlier cache entry."""
CACHE_CONTROL = {"type": "ephemeral"}
DISABLE_ENV = "DISABLE_PROMPT_CACHING"
_UNMARKABLE = frozenset({"thinking", "redacted_thinking"})
"""Blocks the API does not accept ``cache_control`` on."""


def prompt_caching_enabled(setting: bool | None = None) -> bool:
    """``setting`` if given, else on unless ``DISABLE_PROMPT_CACHING`` is set to a true value."""
    if setting is not None:
        return setting
    return os.environ.get(DISABLE_ENV, "").strip().lower() not in ("1", "true", "yes", "on")


def _markable_index(content: Any) -> int | None:
    if not isinstance(content, list):
        return None
    for index in range(len(content) - 1, -1, -1):
        block = content[index]
        if not isinstance(block, dict) or block.get("type") in _UNMARKABLE:
            continue
        if block.get("type") == "text" and not block.get("text"):
            continue  # the API refuses cache_control on an empty text block
        return index
    return None


def _marked(message: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``message`` with its last markable block marked (the history is shared)."""
    content = message.get("content") or []
    if isinstance(content, str):
        if not content:
            return message
        return {**message, "content": [{"type": "text", "text": content, "cache_control": dict(CACHE_CONTROL)}]}
    index = _markable_index(content)
    if index is None:
        return message
    blocks = list(content)
    blocks[index] = {**blocks[index], "cache_control": dict(CACHE_CONTROL)}
    return {**message, "content": blocks}


def breakpoint_positions(messages: Sequence[dict[str, Any]]) -> list[int]:
    """Indices of the messages to mark: the one that ended the previous request (the last
    before the latest assistant message) and the last one."""
    if not messages:
        return []
    last = len(messages) - 1
    latest_assistant = next((i for i in range(last, -1, -1) if messages[i].get("role") == "assistant"), None)
    positions = [last]
    if latest_assistant is not None and latest_assistant > 0 and latest_assistant - 1 != last:
        positions.insert(0, latest_assistant - 1)
    return positions


def with_message_breakpoints(
    messages: list[dict[str, Any]], *, budget: int = MAX_BREAKPOINTS - 1, in_place: bool = False
) -> list[dict[str, Any]]:
    """``messages`` with the rolling breakpoints added (at most ``budget`` of them): a copy,
    or ``messages`` itself with ``in_place`` (for a list made for this request alone; the
    marked messages are new dicts either way, the others are shared)."""
    positions = breakpoint_positions(messages)[-budget:] if budget > 0 else []
    if not positions:
        return messages
    out = messages if in_place else list(messages)
    for position in positions:
        out[position] = _marked(out[position])
    return out


def without_cache_control(blocks: Any) -> Any:
    """System blocks (or tools) with every ``cache_control`` removed."""
    if not isinstance(blocks, list):
        return blocks
    return [{k: v for k, v in b.items() if k != "cache_control"} if isinstance(b, dict) else b for b in blocks]


def count_breakpoints(body: dict[str, Any]) -> int:
    """How many blocks of a request body carry ``cache_control``."""
    count = sum(1 for t in body.get("tools") or [] if isinstance(t, dict) and "cache_control" in t)
    system = body.get("system")
    if isinstance(system, list):
        count += sum(1 for b in system if isinstance(b, dict) and "cache_control" in b)
    for message in body.get("messages") or []:
        content = message.get("content")
        if isinstance(content, list):
            count += sum(1 for b in content if isinstance(b, dict) and "cache_control" in b)
    return count


__all__ = [
    "CACHE_CONTROL",
    "DISABLE_ENV",
    "LOOKBACK_BLOCKS",
    "MAX_BREAKPOINTS",
    "breakpoint_positions",
    "count_breakpoints",
    "prompt_caching_enabled",
    "with_message_breakpoints",
    "without_cache_control",
]
