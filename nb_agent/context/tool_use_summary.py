"""Tool-use summaries (SPEC §5, seed 002 §13): a one-line label for a batch of tool calls.

Optional (``ContextConfig.tool_use_summaries``, in ``EngineConfig.options.context``). After a tool batch the
loop starts :func:`generate_tool_use_summary` as a task; a small model (Haiku) answers in
about a second while the main model streams its next response, and the loop yields the
summary once both are done — it never waits for it. Any failure yields nothing.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from nb_agent.messages import ContentBlock, ToolUseSummaryMessage

log = logging.getLogger(__name__)

QUERY_SOURCE = "tool_use_summary"
"""A background source: its 529s are not retried."""
MAX_SUMMARY_CHARS = 120
INPUT_CHARS = 300
OUTPUT_CHARS = 300

SUMMARY_PROMPT = """\
Write a short label for what these tool calls did, as one line of at most 8 words, in the \
past tense, like a git commit subject (for example "Read the pandas config files" or "Ran \
the test suite: 2 failures"). Answer with the label only."""


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


def _result_text(message: Any, tool_use_id: str) -> str:
    content = getattr(message, "content", None)
    if isinstance(content, str) or content is None:
        return ""
    for block in content:
        if block.get("type") == "tool_result" and block.get("tool_use_id") == tool_use_id:
            inner = block.get("content", "")
            if not isinstance(inner, str):
                inner = " ".join(b.get("text", "") for b in inner if b.get("type") == "text")
            return ("(error) " if block.get("is_error") else "") + inner
    return ""


def describe_tool_uses(tool_use_blocks: list[ContentBlock], tool_results: list[Any]) -> str:
    lines = []
    for block in tool_use_blocks:
        result = next((t for r in tool_results if (t := _result_text(r, block["id"]))), "")
        payload = json.dumps(block.get("input", {}), ensure_ascii=False)
        lines.append(f"- {block.get('name', '')}({_clip(payload, INPUT_CHARS)}) → {_clip(result, OUTPUT_CHARS)}")
    return "\n".join(lines)


def summary_request(tool_use_blocks: list[ContentBlock], tool_results: list[Any], *, model: str) -> dict[str, Any]:
    text = f"{SUMMARY_PROMPT}\n\nTool calls:\n{describe_tool_uses(tool_use_blocks, tool_results)}"
    return {"model": model, "max_tokens": 64, "messages": [{"role": "user", "content": [{"type": "text", "text": text}]}]}


async def generate_tool_use_summary(
    tool_use_blocks: list[ContentBlock],
    tool_results: list[Any],
    *,
    ask: Callable[[dict[str, Any]], Awaitable[str]],
    model: str,
) -> ToolUseSummaryMessage | None:
    """One line from the small model, or None on any failure (never raises)."""
    if not tool_use_blocks:
        return None
    try:
        raw = await ask(summary_request(tool_use_blocks, tool_results, model=model))
    except Exception:  # a summary is decoration: no failure may reach the loop
        log.debug("tool-use summary failed", exc_info=True)
        return None
    line = " ".join(raw.strip().splitlines()[:1]).strip().strip('"')
    if not line:
        return None
    return ToolUseSummaryMessage(summary=_clip(line, MAX_SUMMARY_CHARS), preceding_tool_use_ids=[b["id"] for b in tool_use_blocks])


__all__ = ["QUERY_SOURCE", "describe_tool_uses", "generate_tool_use_summary", "summary_request"]
