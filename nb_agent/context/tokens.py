"""How many tokens the window holds (SPEC §4), without a tokenizer.

The best figure is the API's own: the last response's usage (input + cache + output
tokens) counts everything up to that response exactly. What came after it (tool results,
new prompts) is estimated at four characters a token; image and document blocks count
as 2,000 tokens each. Edits the context tiers make *before* that response (microcompact
clearing old results) are subtracted as "freed" tokens, so a cleared window is not
mistaken for a full one until the next response reports the real size.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from nb_agent.messages import ContentBlock

CHARS_PER_TOKEN = 4
IMAGE_TOKENS = 2_000
"""Estimated (and, in microcompact, capped) tokens of one image or document block."""
MESSAGE_OVERHEAD_TOKENS = 4
"""Role and framing of one message."""


def estimate_text_tokens(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def estimate_block_tokens(block: ContentBlock) -> int:
    kind = block.get("type")
    if kind == "text":
        return estimate_text_tokens(block.get("text", ""))
    if kind in ("image", "document"):
        return IMAGE_TOKENS
    if kind == "tool_result":
        content = block.get("content", "")
        if isinstance(content, str):
            return estimate_text_tokens(content) + MESSAGE_OVERHEAD_TOKENS
        return sum(estimate_block_tokens(b) for b in content) + MESSAGE_OVERHEAD_TOKENS
    if kind in ("tool_use", "server_tool_use", "mcp_tool_use"):
        return estimate_text_tokens(block.get("name", "") + json.dumps(block.get("input", {}), ensure_ascii=False))
    if kind == "thinking":
        return estimate_text_tokens(block.get("thinking", ""))
    if kind == "redacted_thinking":
        return estimate_text_tokens(block.get("data", ""))
    return estimate_text_tokens(json.dumps(block, ensure_ascii=False, default=str))


def estimate_content_tokens(content: str | list[ContentBlock]) -> int:
    if isinstance(content, str):
        return estimate_text_tokens(content)
    return sum(estimate_block_tokens(b) for b in content)


def estimate_message_tokens(message: Any) -> int:
    """Rough tokens of one runtime message as the model would see it (UI kinds: 0)."""
    kind = message.type
    if kind == "user":
        return estimate_content_tokens(message.content) + MESSAGE_OVERHEAD_TOKENS
    if kind == "assistant":
        if message.is_api_error_message:
            return 0
        return estimate_content_tokens(message.content) + MESSAGE_OVERHEAD_TOKENS
    if kind == "attachment":
        return estimate_text_tokens(message.content) + MESSAGE_OVERHEAD_TOKENS
    if kind == "compact_boundary":
        return estimate_text_tokens(message.summary) + 40
    return 0


def estimate_messages_tokens(messages: Iterable[Any]) -> int:
    return sum(estimate_message_tokens(m) for m in messages)


def estimate_api_messages_tokens(api_messages: list[dict[str, Any]]) -> int:
    """The same estimate over Messages API dicts (a request body's ``messages``)."""
    return sum(estimate_content_tokens(m["content"]) + MESSAGE_OVERHEAD_TOKENS for m in api_messages)


@dataclass(kw_only=True)
class UsageAnchors:
    """Exact context sizes the API reported, keyed by the last message of each response.

    ``anchors[uuid]`` is the context the response occupied (input, cache reads/writes and
    its own output). ``freed[uuid]`` is what later edits removed from before that
    response. Compaction copies get fresh uuids, so a pre-compaction figure is never
    applied to a compacted window.
    """

    anchors: dict[str, int] = field(default_factory=dict)
    freed: dict[str, int] = field(default_factory=dict)

    def record(self, uuid: str, tokens: int) -> None:
        self.anchors[uuid] = tokens
        self.freed.pop(uuid, None)

    def clear(self) -> None:
        self.anchors.clear()
        self.freed.clear()

    def anchor_index(self, messages: list[Any]) -> int | None:
        for i in range(len(messages) - 1, -1, -1):
            if messages[i].type == "assistant" and messages[i].uuid in self.anchors:
                return i
        return None

    def note_freed(self, messages: list[Any], index: int, tokens: int) -> None:
        """``tokens`` were removed from ``messages[index]``; counts if before the anchor."""
        anchor = self.anchor_index(messages)
        if anchor is not None and index < anchor and tokens > 0:
            uuid = messages[anchor].uuid
            self.freed[uuid] = self.freed.get(uuid, 0) + tokens

    def estimate(self, messages: list[Any]) -> int:
        """Tokens of ``messages``: the last anchor's figure plus an estimate of the rest."""
        anchor = self.anchor_index(messages)
        if anchor is None:
            return estimate_messages_tokens(messages)
        uuid = messages[anchor].uuid
        exact = self.anchors[uuid] - self.freed.get(uuid, 0)
        return max(0, exact) + estimate_messages_tokens(messages[anchor + 1 :])


__all__ = [
    "CHARS_PER_TOKEN",
    "IMAGE_TOKENS",
    "UsageAnchors",
    "estimate_api_messages_tokens",
    "estimate_content_tokens",
    "estimate_message_tokens",
    "estimate_messages_tokens",
    "estimate_text_tokens",
]
