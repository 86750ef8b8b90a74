"""The image window (issue 24): only the last few images stay in the conversation.

A chart a tool returned is worth showing the model while the work is about it, not for
the rest of a two-hour session: at 30–130 KB of base64 each, a hundred charts make every
request megabytes long. So an image result older than the last ``keep`` images is
*evicted*: its image blocks become one line that says where the image is saved (the
session's tool-results directory) and that reading the file shows it again. Its text
stays.

Evictions rewrite old history and so cost a prompt-cache write from there on. They are
therefore decided at most once per cell in the usual case: at the first request of a
submission, down to ``keep``. Within a cell they happen only when the images in the
window exceed :data:`MAX_IMAGES_IN_REQUEST` or their bytes exceed the byte budget (a
request-size budget: bytes on the wire, not tokens), and then again down to ``keep`` (and
the budget), so the next several charts fit without another rewrite. The newest image
result is never evicted.

An eviction is sticky (kept in :class:`ImageWindowState` with its exact placeholder, and
in the transcript), so the history sent stays byte-identical across turns and a resume.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the magics read the defaults before any heavy import
    from nb_agent.messages import ContentBlock

TRANSCRIPT_KIND = "image_window"
DEFAULT_KEEP_IMAGES = 4
MIN_KEEP_IMAGES = 3
MAX_KEEP_IMAGES = 8
MAX_IMAGES_IN_REQUEST = MAX_KEEP_IMAGES
"""Within a cell, more images than this in the window evicts down to ``keep``."""
DEFAULT_IMAGE_BYTES_BUDGET = 1_000_000
"""Base64 bytes of the images a request may carry before older ones are evicted."""
_EXTENSIONS = {"image/png": "png", "image/jpeg": "jpg", "image/gif": "gif", "image/webp": "webp"}


def clamp_keep(keep: int) -> int:
    """``keep`` within the supported range (3–8)."""
    return max(MIN_KEEP_IMAGES, min(MAX_KEEP_IMAGES, int(keep)))


@dataclass(kw_only=True)
class ImageWindowState:
    evicted: dict[str, str] = field(default_factory=dict)
    """tool_use_id → the placeholder line that replaced its images."""

    def clone(self) -> ImageWindowState:
        return ImageWindowState(evicted=dict(self.evicted))


@dataclass(frozen=True, kw_only=True)
class ImageRef:
    """A tool result holding images, oldest first in the window."""

    tool_use_id: str
    images: int
    bytes: int
    """Base64 characters of its images (what they add to a request)."""


def image_blocks(content: str | list[ContentBlock]) -> list[ContentBlock]:
    if isinstance(content, str):
        return []
    return [b for b in content if isinstance(b, dict) and b.get("type") == "image"]


def image_size(content: str | list[ContentBlock]) -> tuple[int, int]:
    """(images, base64 bytes) of a tool_result content."""
    blocks = image_blocks(content)
    return len(blocks), sum(len(str((b.get("source") or {}).get("data", ""))) for b in blocks)


def choose_evictions(
    live: Sequence[ImageRef],
    *,
    keep: int,
    byte_budget: int,
    cell_start: bool,
) -> list[str]:
    """The tool_use_ids to evict now (oldest first), per the module's policy."""
    images = sum(r.images for r in live)
    size = sum(r.bytes for r in live)
    over = images > MAX_IMAGES_IN_REQUEST or size > byte_budget or (cell_start and images > keep)
    if not over or len(live) < 2:
        return []
    chosen: list[str] = []
    for ref in live[:-1]:  # the newest image result is never evicted
        if images <= keep and size <= byte_budget:
            break
        chosen.append(ref.tool_use_id)
        images -= ref.images
        size -= ref.bytes
    return chosen


def _save(block: ContentBlock, path: Path) -> bool:
    source = block.get("source") or {}
    try:
        raw = base64.b64decode(str(source.get("data", "")), validate=True)
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "xb") as f:
            f.write(raw)
    except FileExistsError:
        return True  # saved by an earlier eviction of the same result
    except (OSError, ValueError, binascii.Error):
        return False
    return True


def placeholder(content: str | list[ContentBlock], tool_use_id: str, results_dir: Path | None) -> str:
    """Save the images of ``content`` under ``results_dir`` and say where, in one line."""
    blocks = image_blocks(content)
    paths: list[str] = []
    for number, block in enumerate(blocks, start=1):
        media_type = str((block.get("source") or {}).get("media_type", "image/png"))
        if results_dir is None:
            break
        path = results_dir / f"{tool_use_id}-image{number}.{_EXTENSIONS.get(media_type, 'png')}"
        if not _save(block, path):
            break
        paths.append(str(path))
    what = "image" if len(blocks) == 1 else f"{len(blocks)} images"
    if len(paths) == len(blocks):
        where = ", ".join(paths)
        return f"[{what} removed from the conversation to keep requests small; saved as {where}: Read the file to see it again]"
    return f"[{what} removed from the conversation to keep requests small; run the code again to see it]"


def evicted_content(content: str | list[ContentBlock], line: str) -> str | list[ContentBlock]:
    """``content`` with its image blocks replaced by ``line`` (its text kept)."""
    if isinstance(content, str) or not image_blocks(content):
        return content
    kept = [b for b in content if not (isinstance(b, dict) and b.get("type") == "image")]
    return [*kept, {"type": "text", "text": line}]


def state_from_entries(entries: Sequence[Mapping[str, Any]], present: set[str]) -> ImageWindowState:
    """The evictions recorded in a transcript, for the results still in the history."""
    state = ImageWindowState()
    for entry in entries:
        if entry.get("kind") != TRANSCRIPT_KIND:
            continue
        evicted = entry.get("evicted")
        if not isinstance(evicted, dict):
            continue
        for tool_use_id, line in evicted.items():
            if tool_use_id in present and isinstance(line, str):
                state.evicted[tool_use_id] = line
    return state


__all__ = [
    "DEFAULT_IMAGE_BYTES_BUDGET",
    "DEFAULT_KEEP_IMAGES",
    "ImageRef",
    "ImageWindowState",
    "MAX_IMAGES_IN_REQUEST",
    "TRANSCRIPT_KIND",
    "choose_evictions",
    "clamp_keep",
    "evicted_content",
    "image_size",
    "placeholder",
    "state_from_entries",
]
