"""The API's prompt cache, simulated for the fake server: usage split into cache reads,
cache writes and fresh input by the documented rules.

- The prompt is the sequence ``tools`` → ``system`` → ``messages``; every tool definition,
  system block and message content block is one block. Tools sent with ``defer_loading``
  are not part of the prefix; a ``tool_reference`` block in a tool result stands for the
  referenced definition, loaded at that point of the conversation.
- A block marked ``cache_control`` is a breakpoint; more than 4 is a 400 error.
- At each breakpoint the cache is looked up at that block and up to 19 blocks before it
  (the 20-block lookback); the longest prefix found is read.
- Each breakpoint whose prefix is at least the model's minimum cacheable length is written
  (or, if already cached, refreshed); what lies between the read prefix and the last
  written breakpoint is billed as a cache write, the rest of the prompt as input.
- Entries live 5 minutes from their last use (``"ttl": "1h"`` for an hour); the cache is
  per model. ``ttl_s=None`` keeps entries forever.

Tokens are estimated as a quarter of the characters of each block's canonical JSON
(``cache_control`` left out, so moving a marker never changes the content), except images,
which count by their pixels as the API bills them (:func:`image_tokens`), not by the length
of their base64.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import io
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from nb_agent.model.model_ids import base_model_name
from nb_agent.model.prompt_cache import LOOKBACK_BLOCKS, MAX_BREAKPOINTS, count_breakpoints

CHARS_PER_TOKEN = 4
DEFAULT_TTL_S = 300.0
ONE_HOUR_S = 3600.0

MINIMUM_CACHEABLE_TOKENS: dict[str, int] = {
    "claude-opus-4-6": 4096,
    "claude-opus-4-5": 4096,
    "claude-haiku-4-5": 4096,
    "claude-sonnet-4-6": 2048,
    "claude-3-5-haiku": 2048,
    "claude-3-haiku": 2048,
}
"""The documented minimums; other models (Sonnet 4.5, 4, 3.7, Opus 4.1, 4) cache from 1024."""
DEFAULT_MINIMUM_TOKENS = 1024
MAX_IMAGE_SIDE = 1568
MAX_IMAGE_PIXELS = 1_150_000
"""The API scales an image down to fit both before the model sees it."""
PIXELS_PER_TOKEN = 750


def minimum_cacheable_tokens(model: str) -> int:
    name = base_model_name(model).removesuffix("[1m]")
    best = max((p for p in MINIMUM_CACHEABLE_TOKENS if name.startswith(p)), key=len, default="")
    return MINIMUM_CACHEABLE_TOKENS[best] if best else DEFAULT_MINIMUM_TOKENS


class TooManyBreakpointsError(ValueError):
    """More ``cache_control`` blocks than the API accepts (the server answers 400)."""


@dataclass(frozen=True, kw_only=True)
class CacheUsage:
    input_tokens: int
    cache_creation_input_tokens: int
    cache_read_input_tokens: int


@dataclass(frozen=True, kw_only=True)
class _Block:
    tokens: int
    breakpoint_ttl_s: float | None
    """Set when the block carries ``cache_control``."""


def _canonical(value: Any) -> str:
    if isinstance(value, dict):
        value = {k: v for k, v in value.items() if k != "cache_control"}
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _tokens(text: str) -> int:
    return max(1, -(-len(text) // CHARS_PER_TOKEN))


def image_tokens(data: str) -> int:
    """Tokens of a base64 image: ``width × height / 750`` after the API's own downscaling
    (long side ≤ 1,568 px, ≤ 1.15 megapixels); the largest size when it cannot be read."""
    largest = MAX_IMAGE_PIXELS // PIXELS_PER_TOKEN
    try:
        from PIL import Image

        with Image.open(io.BytesIO(base64.b64decode(data, validate=False))) as image:
            width, height = image.size
    except (ImportError, OSError, ValueError, binascii.Error):
        return largest
    scale = min(1.0, MAX_IMAGE_SIDE / max(width, height, 1), (MAX_IMAGE_PIXELS / max(width * height, 1)) ** 0.5)
    return max(1, min(largest, round(width * scale) * round(height * scale) // PIXELS_PER_TOKEN))


def _image_block_tokens(block: dict[str, Any]) -> int:
    source = block.get("source") or {}
    return image_tokens(str(source.get("data", ""))) if source.get("type") == "base64" else MAX_IMAGE_PIXELS // PIXELS_PER_TOKEN


def _block_tokens(block: dict[str, Any]) -> int:
    """A content block's tokens, its images (direct or in a tool_result) counted by pixels."""
    if block.get("type") == "image":
        return _image_block_tokens(block)
    parts = block.get("content") if block.get("type") == "tool_result" else None
    if not isinstance(parts, list) or not any(isinstance(p, dict) and p.get("type") == "image" for p in parts):
        return _tokens(_canonical(block))
    images = [p for p in parts if isinstance(p, dict) and p.get("type") == "image"]
    rest = [p for p in parts if not (isinstance(p, dict) and p.get("type") == "image")]
    return _tokens(_canonical({**block, "content": rest})) + sum(_image_block_tokens(i) for i in images)


def _ttl_of(block: Any, default: float | None) -> float | None:
    control = block.get("cache_control") if isinstance(block, dict) else None
    if not isinstance(control, dict):
        return None
    return ONE_HOUR_S if control.get("ttl") == "1h" and default is not None else (default if default is not None else float("inf"))


def prompt_blocks(body: dict[str, Any], default_ttl_s: float | None = DEFAULT_TTL_S) -> tuple[list[str], list[_Block]]:
    """The request as (canonical text, block) pairs in prefix order."""
    texts: list[str] = []
    blocks: list[_Block] = []
    definitions: dict[str, Any] = {}

    def add(value: Any, text: str | None = None, tokens: int | None = None) -> None:
        text = text if text is not None else _canonical(value)
        texts.append(text)
        blocks.append(_Block(tokens=_tokens(text) if tokens is None else tokens, breakpoint_ttl_s=_ttl_of(value, default_ttl_s)))

    for tool in body.get("tools") or []:
        if isinstance(tool, dict) and tool.get("defer_loading"):
            definitions[tool.get("name", "")] = tool
            continue
        add(tool)
    system = body.get("system")
    if isinstance(system, str):
        add({"type": "text", "text": system})
    elif isinstance(system, list):
        for block in system:
            add(block)
    for message in body.get("messages") or []:
        content = message.get("content")
        role = message.get("role", "")
        if isinstance(content, str):
            add({"role": role, "type": "text", "text": content})
            continue
        for block in content or []:
            text = _canonical({"role": role, **block}) if isinstance(block, dict) else _canonical(block)
            loaded = "".join(_canonical(definitions.get(name, {})) for name in _referenced(block))
            tokens = _block_tokens({"role": role, **block}) + (_tokens(loaded) if loaded else 0) if isinstance(block, dict) else None
            add(block, text + loaded, tokens)
    return texts, blocks


def _referenced(block: Any) -> list[str]:
    if not isinstance(block, dict) or block.get("type") != "tool_result" or not isinstance(block.get("content"), list):
        return []
    return [p.get("tool_name", "") for p in block["content"] if isinstance(p, dict) and p.get("type") == "tool_reference"]


@dataclass
class PromptCacheSimulator:
    """A per-server prompt cache. Thread-safe (the fake server answers on many threads)."""

    ttl_s: float | None = DEFAULT_TTL_S
    clock: Callable[[], float] = time.monotonic
    minimum_tokens: Callable[[str], int] = minimum_cacheable_tokens
    _entries: dict[str, float] = field(default_factory=dict)
    """prefix key → expiry time."""
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def account(self, body: dict[str, Any]) -> CacheUsage:
        """The usage of ``body``; updates the cache. Raises ``TooManyBreakpointsError``."""
        found = count_breakpoints(body)
        if found > MAX_BREAKPOINTS:
            raise TooManyBreakpointsError(f"A maximum of {MAX_BREAKPOINTS} blocks with cache_control may be provided. Found {found}.")
        texts, blocks = prompt_blocks(body, self.ttl_s)
        keys = _prefix_keys(str(body.get("model", "")), texts)
        totals = _running_totals(blocks)
        breakpoints = [i for i, b in enumerate(blocks) if b.breakpoint_ttl_s is not None]
        minimum = self.minimum_tokens(str(body.get("model", "")))
        with self._lock:
            now = self.clock()
            read_end = self._longest_hit(keys, breakpoints, now)
            written_end = -1
            for index in breakpoints:
                if totals[index] < minimum:
                    continue
                ttl = blocks[index].breakpoint_ttl_s
                self._entries[keys[index]] = now + (ttl if ttl is not None else float("inf"))
                written_end = max(written_end, index)
            if read_end >= 0:
                self._refresh(keys[read_end], now, blocks[read_end].breakpoint_ttl_s)
        read = totals[read_end] if read_end >= 0 else 0
        written = max(0, totals[written_end] - read) if written_end > read_end else 0
        total = totals[-1] if totals else 0
        return CacheUsage(input_tokens=total - read - written, cache_creation_input_tokens=written, cache_read_input_tokens=read)

    def _alive(self, key: str, now: float) -> bool:
        expiry = self._entries.get(key)
        return expiry is not None and (self.ttl_s is None or expiry > now)

    def _longest_hit(self, keys: list[str], breakpoints: list[int], now: float) -> int:
        best = -1
        for index in breakpoints:
            for candidate in range(index, max(-1, index - LOOKBACK_BLOCKS), -1):
                if candidate <= best:
                    break
                if self._alive(keys[candidate], now):
                    best = candidate
                    break
        return best

    def _refresh(self, key: str, now: float, ttl: float | None) -> None:
        lifetime = ttl if ttl is not None else (self.ttl_s if self.ttl_s is not None else float("inf"))
        self._entries[key] = max(self._entries.get(key, 0.0), now + lifetime)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


def _prefix_keys(model: str, texts: list[str]) -> list[str]:
    digest = hashlib.sha256(base_model_name(model).encode())
    keys = []
    for text in texts:
        digest.update(b"\x00" + text.encode())
        keys.append(digest.copy().hexdigest())
    return keys


def _running_totals(blocks: list[_Block]) -> list[int]:
    totals, running = [], 0
    for block in blocks:
        running += block.tokens
        totals.append(running)
    return totals


__all__ = [
    "CacheUsage",
    "DEFAULT_TTL_S",
    "PromptCacheSimulator",
    "TooManyBreakpointsError",
    "image_tokens",
    "minimum_cacheable_tokens",
    "prompt_blocks",
]
