"""Large tool results: persisted to disk once, replaced in context by a tagged preview (SPEC §3)."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nb_agent.messages import ContentBlock
from nb_agent.tools.base import DEFAULT_MAX_RESULT_SIZE_CHARS

PERSISTED_OUTPUT_TAG = "<persisted-output>"
PERSISTED_OUTPUT_CLOSING_TAG = "</persisted-output>"
PREVIEW_SIZE_BYTES = 2_000
TOOL_RESULTS_SUBDIR = "tool-results"


def persistence_threshold(declared_max_result_size_chars: float) -> float:
    """min(tool's declared cap, global default); ``inf`` (Read) is a hard exemption."""
    if not math.isfinite(declared_max_result_size_chars):
        return declared_max_result_size_chars
    return min(declared_max_result_size_chars, DEFAULT_MAX_RESULT_SIZE_CHARS)


@dataclass(frozen=True, kw_only=True)
class PersistedToolResult:
    filepath: Path
    original_size: int
    preview: str
    has_more: bool


def content_size(content: str | list[ContentBlock]) -> int:
    """Characters of text in a tool_result content (images count as nothing here)."""
    if isinstance(content, str):
        return len(content)
    return sum(len(b.get("text", "")) for b in content if b.get("type") == "text")


def _has_images(content: str | list[ContentBlock]) -> bool:
    return not isinstance(content, str) and any(b.get("type") != "text" for b in content)


def format_file_size(size: int) -> str:
    if size < 1024:
        return f"{size} bytes"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f}KB"
    return f"{size / (1024 * 1024):.1f}MB"


def _preview(text: str, limit_bytes: int) -> tuple[str, bool]:
    encoded = text.encode("utf-8")
    if len(encoded) <= limit_bytes:
        return text, False
    cut = encoded[:limit_bytes].decode("utf-8", errors="ignore")
    # Prefer ending at a line break so the preview does not end mid-line.
    newline = cut.rfind("\n")
    if newline > limit_bytes // 2:
        cut = cut[:newline]
    return cut, True


def persist_tool_result(content: str | list[ContentBlock], tool_use_id: str, results_dir: Path) -> PersistedToolResult:
    """Write the full result once (exclusive create: an existing file is the same result)."""
    is_json = not isinstance(content, str)
    text = json.dumps(content, ensure_ascii=False) if is_json else content
    results_dir.mkdir(parents=True, exist_ok=True)
    filepath = results_dir / f"{tool_use_id}.{'json' if is_json else 'txt'}"
    try:
        with open(filepath, "x", encoding="utf-8") as f:
            f.write(text)
    except FileExistsError:
        pass  # persisted by an earlier turn (replays after microcompact)
    preview, has_more = _preview(text, PREVIEW_SIZE_BYTES)
    return PersistedToolResult(filepath=filepath, original_size=len(text), preview=preview, has_more=has_more)


def build_large_tool_result_message(result: PersistedToolResult) -> str:
    return (
        f"{PERSISTED_OUTPUT_TAG}\n"
        f"Output too large ({format_file_size(result.original_size)}). Full output saved to: {result.filepath}\n\n"
        f"Preview (first {format_file_size(PREVIEW_SIZE_BYTES)}):\n"
        f"{result.preview}"
        f"{chr(10) + '...' + chr(10) if result.has_more else chr(10)}"
        f"{PERSISTED_OUTPUT_CLOSING_TAG}"
    )


def _truncate_in_context(text: str, threshold: int, note: str) -> str:
    head = text[: threshold // 2]
    tail = text[-threshold // 4 :]
    omitted = len(text) - len(head) - len(tail)
    return f"{head}\n\n[{omitted} characters truncated: {note}]\n\n{tail}"


def process_tool_result_size(
    content: str | list[ContentBlock],
    *,
    tool_use_id: str,
    max_result_size_chars: float,
    session_dir: Path | None,
) -> str | list[ContentBlock]:
    """Return the content the model sees: unchanged, or a preview of the persisted file.

    If the tool-results directory is not writable the result is truncated in context
    instead, with a note saying why (nothing is lost silently).
    """
    threshold = persistence_threshold(max_result_size_chars)
    size = content_size(content)
    if not math.isfinite(threshold) or size <= threshold or _has_images(content):
        return content
    text = content if isinstance(content, str) else "\n".join(b.get("text", "") for b in content)
    if session_dir is None:
        return _truncate_in_context(text, int(threshold), "no session directory to persist the full output")
    try:
        persisted = persist_tool_result(content, tool_use_id, session_dir / TOOL_RESULTS_SUBDIR)
    except OSError as exc:
        return _truncate_in_context(text, int(threshold), f"could not persist the full output ({exc.strerror or exc})")
    return build_large_tool_result_message(persisted)


def is_persisted_preview(text: Any) -> bool:
    return isinstance(text, str) and text.startswith(PERSISTED_OUTPUT_TAG)


def content_text(content: str | list[ContentBlock]) -> str:
    """The text of a tool_result content (text blocks joined by newlines)."""
    if isinstance(content, str):
        return content
    return "\n".join(b.get("text", "") for b in content if b.get("type") == "text")


def persist_or_truncate(content: str | list[ContentBlock], *, tool_use_id: str, results_dir: Path | None) -> str:
    """A preview of the persisted full result; if it cannot be persisted, the result's
    head and tail in context with a note saying why (the content-replacement budget)."""
    keep = 2 * PREVIEW_SIZE_BYTES
    if results_dir is None:
        return _truncate_in_context(content_text(content), keep, "no session directory to persist the full output")
    try:
        persisted = persist_tool_result(content, tool_use_id, results_dir)
    except OSError as exc:
        return _truncate_in_context(content_text(content), keep, f"could not persist the full output ({exc.strerror or exc})")
    return build_large_tool_result_message(persisted)


__all__ = [
    "PERSISTED_OUTPUT_TAG",
    "PREVIEW_SIZE_BYTES",
    "build_large_tool_result_message",
    "content_text",
    "is_persisted_preview",
    "persist_or_truncate",
    "persist_tool_result",
    "persistence_threshold",
    "process_tool_result_size",
]
