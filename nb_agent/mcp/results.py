"""MCP ``CallToolResult`` → Messages API tool_result content, with the per-call output cap.

Text stays text; images become ``{"type": "image", "source": {"type": "base64", ...}}``
blocks; embedded text resources become text; audio, binary blobs and resource links are
described in a line of text (the API cannot take them). Output beyond the token cap
(default 25,000 tokens ≈ 100,000 characters, env ``NB_AGENT_MCP_MAX_OUTPUT_TOKENS``) is
cut with a note telling the model how to ask for less.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import mcp_types as mt

from nb_agent.mcp.state import DEFAULT_MAX_OUTPUT_TOKENS, MAX_OUTPUT_TOKENS_ENV
from nb_agent.messages import ContentBlock

CHARS_PER_TOKEN = 4
IMAGE_TOKEN_ESTIMATE = 1_600
"""What one image costs the model, roughly (the API charges ~w*h/750, capped near 1,600)."""

API_IMAGE_TYPES = frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"})


@dataclass(frozen=True, kw_only=True)
class McpToolOutput:
    """One converted MCP tool result (what ``McpTool.call`` returns as ``ToolResult.data``)."""

    content: list[ContentBlock]
    is_error: bool = False
    structured_content: Any = None
    truncated: bool = False
    meta: dict[str, Any] = field(default_factory=dict)

    def to_result_content(self) -> str | list[ContentBlock]:
        """A plain string when the result is all text (the common case), else the blocks."""
        if all(b.get("type") == "text" for b in self.content):
            return "\n\n".join(b["text"] for b in self.content) if self.content else "(no content)"
        return list(self.content)


def _text(text: str) -> ContentBlock:
    return {"type": "text", "text": text}


def _image(data: str, media_type: str) -> ContentBlock:
    return {"type": "image", "source": {"type": "base64", "media_type": media_type, "data": data}}


def _approx_bytes(b64: str) -> int:
    return len(b64) * 3 // 4


def convert_content_block(block: mt.ContentBlock) -> ContentBlock:
    """One MCP content block as one Messages API block."""
    if isinstance(block, mt.TextContent):
        return _text(block.text)
    if isinstance(block, mt.ImageContent):
        if block.mime_type in API_IMAGE_TYPES:
            return _image(block.data, block.mime_type)
        return _text(f"[image of unsupported type {block.mime_type}, {_approx_bytes(block.data)} bytes, omitted]")
    if isinstance(block, mt.AudioContent):
        return _text(f"[audio ({block.mime_type}), {_approx_bytes(block.data)} bytes, omitted]")
    if isinstance(block, mt.EmbeddedResource):
        res = block.resource
        if isinstance(res, mt.TextResourceContents):
            return _text(f"[Resource {res.uri}]\n{res.text}")
        mime = res.mime_type or "application/octet-stream"
        if mime in API_IMAGE_TYPES:
            return _image(res.blob, mime)
        return _text(f"[Resource {res.uri} ({mime}), {_approx_bytes(res.blob)} bytes of binary data, omitted]")
    if isinstance(block, mt.ResourceLink):
        desc = f": {block.description}" if block.description else ""
        return _text(f"[Resource link {block.name} <{block.uri}>{desc}]")
    return _text(json.dumps(block.model_dump(mode="json", by_alias=True, exclude_none=True)))


def estimate_tokens(blocks: list[ContentBlock]) -> int:
    """Rough token count: text chars / 4, a flat estimate per image."""
    total = 0
    for b in blocks:
        total += IMAGE_TOKEN_ESTIMATE if b.get("type") == "image" else len(b.get("text", "")) // CHARS_PER_TOKEN
    return total


def truncation_note(total_tokens: int, max_tokens: int) -> str:
    return (
        f"\n\n[Output truncated: the MCP tool returned about {total_tokens:,} tokens, more than the "
        f"{max_tokens:,}-token limit ({MAX_OUTPUT_TOKENS_ENV}). Ask for less data, e.g. with "
        "filters, pagination or a narrower query.]"
    )


def cap_output(blocks: list[ContentBlock], max_tokens: int) -> tuple[list[ContentBlock], bool]:
    """Keep blocks in order until the budget runs out; cut the last text block to fit."""
    total = estimate_tokens(blocks)
    if total <= max_tokens:
        return blocks, False
    budget_chars = max_tokens * CHARS_PER_TOKEN
    kept: list[ContentBlock] = []
    for b in blocks:
        if b.get("type") == "image":
            cost = IMAGE_TOKEN_ESTIMATE * CHARS_PER_TOKEN
            if cost <= budget_chars:
                kept.append(b)
                budget_chars -= cost
            continue
        text = b.get("text", "")
        if len(text) <= budget_chars:
            kept.append(b)
            budget_chars -= len(text)
        else:
            if budget_chars > 0:
                kept.append(_text(text[:budget_chars]))
            budget_chars = 0
    note = truncation_note(total, max_tokens)
    if kept and kept[-1].get("type") == "text":
        kept[-1] = _text(kept[-1]["text"] + note)
    else:
        kept.append(_text(note.strip()))
    return kept, True


def convert_call_result(result: mt.CallToolResult, *, max_output_tokens: int = DEFAULT_MAX_OUTPUT_TOKENS) -> McpToolOutput:
    """Convert a ``CallToolResult`` and apply the output cap."""
    blocks = [convert_content_block(b) for b in result.content]
    if not blocks and result.structured_content is not None:
        # A server that only returns structured output: the model still needs to see it.
        blocks = [_text(json.dumps(result.structured_content, ensure_ascii=False, default=str))]
    blocks, truncated = cap_output(blocks, max_output_tokens)
    return McpToolOutput(
        content=blocks,
        is_error=bool(result.is_error),
        structured_content=result.structured_content,
        truncated=truncated,
    )
