"""The context tiers that rewrite old tool results, applied incrementally (issue 24).

Three tiers change what an old tool_result says without changing the history's shape:
the result budget (a batch of fresh results too large → previews of persisted files),
microcompact (old results of compactable tools → ``[Old tool result content cleared]``)
and the image window (old images → a line saying where they are saved). Their decisions
are sticky and kept in their states; the content a result is sent with follows from its
original content and those decisions alone (a clear wins; budget replacements and image
evictions never meet: one takes text-only results, the other image results).

:class:`ToolResultRewrites` keeps, for the window it saw last, the original messages and
the rewritten ones side by side. The loop hands it the window it got back plus the
turn's new messages; the engine hands it its own (original) history at the start of a
submission. Either way only the new messages are scanned and only messages touched by a
new decision are rewritten, so a turn costs what it added, not the length of the
session. Anything else (a compaction, a rewind cutting the history back, a late or
duplicate tool_use id) rebuilds the scan from the states, with the same result.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from nb_agent.context.content_replacement import (
    ContentReplacementRecord,
    ContentReplacementState,
    decide_batch,
    is_replaceable,
)
from nb_agent.context.images import (
    ImageRef,
    ImageWindowState,
    choose_evictions,
    evicted_content,
    image_size,
    placeholder,
)
from nb_agent.context.microcompact import CLEARED_MESSAGE, MicrocompactState, clear_gain
from nb_agent.messages import ContentBlock, starts_with


@dataclass(kw_only=True)
class _Ref:
    index: int
    tool_use_id: str
    tool_name: str
    group: str
    gain: int = 0
    """Tokens a clear would free (compactable results)."""
    images: int = 0
    image_bytes: int = 0


class ToolResultRewrites:
    """Sticky tool-result rewrites over a growing window (see the module doc).

    Call :meth:`sync` with the window, then any of the deciding steps, then
    :meth:`window` for the rewritten window.
    """

    def __init__(
        self,
        *,
        replacement: ContentReplacementState,
        microcompact: MicrocompactState,
        images: ImageWindowState,
        compactable_tools: frozenset[str],
    ) -> None:
        self.replacement = replacement
        self.microcompact = microcompact
        self.images = images
        self.compactable_tools = compactable_tools
        self.rebuilds = 0
        """How often a window had to be scanned from its start (tests and benches read it)."""
        self.scanned = 0
        """Messages scanned in total."""
        self._reset()

    def _reset(self) -> None:
        self._raw: list[Any] = []
        self._out: list[Any] = []
        self._by_id: dict[str, _Ref] = {}
        self._at: dict[str, list[int]] = {}
        """Every message index holding a result of that id (a duplicate id shares decisions)."""
        self._owner: dict[str, tuple[str, str]] = {}
        self._groups: dict[str, list[_Ref]] = {}
        self._fresh: list[_Ref] = []
        """Refs added by the last sync, not yet registered as live."""
        self._live: list[_Ref] = []
        """Compactable results not cleared, oldest first."""
        self._live_gain = 0
        """The sum of their positive gains (what clearing every one would free)."""
        self._live_images: list[_Ref] = []
        self._dirty: set[int] = set()

    # --- scanning ---------------------------------------------------------------------------
    def sync(self, window: list[Any]) -> None:
        """Take in ``window``: only what follows the part seen before is scanned."""
        if starts_with(window, self._out):
            known = len(self._out)
        elif starts_with(window, self._raw):
            known = len(self._raw)
        else:
            self.rebuilds += 1
            self._reset()
            known = 0
        tail = window[known:]
        if not self._scan(tail, known):
            self.rebuilds += 1
            self._reset()
            self._scan(list(window), 0)

    def _scan(self, tail: list[Any], start: int) -> bool:
        """Add ``tail`` (at ``start``); False when a tool_use in it re-owns a known result."""
        owner: dict[str, tuple[str, str]] = {}
        for message in tail:
            if message.type == "assistant":
                for block in message.tool_uses:
                    owner[block["id"]] = (block.get("name", ""), message.message_id)
        if owner and (not self._owner.keys().isdisjoint(owner) or not self._by_id.keys().isdisjoint(owner)):
            return False
        self._owner.update(owner)
        self.scanned += len(tail)
        self._raw.extend(tail)
        self._out.extend(tail)
        for offset, message in enumerate(tail):
            if message.type != "user" or isinstance(message.content, str):
                continue
            for block in message.content:
                if block.get("type") == "tool_result":
                    self._add_ref(block["tool_use_id"], start + offset)
        return True

    def _add_ref(self, tool_use_id: str, index: int) -> None:
        name, response = self._owner.get(tool_use_id, ("", f"orphan:{index}"))
        ref = _Ref(index=index, tool_use_id=tool_use_id, tool_name=name, group=response)
        self._by_id.setdefault(tool_use_id, ref)
        self._at.setdefault(tool_use_id, []).append(index)
        self._groups.setdefault(response, []).append(ref)
        self._fresh.append(ref)
        if self._decided(tool_use_id):
            self._dirty.add(index)

    def _decided(self, tool_use_id: str) -> bool:
        return (
            tool_use_id in self.microcompact.cleared_ids
            or tool_use_id in self.replacement.replacements
            or tool_use_id in self.images.evicted
        )

    def _touch(self, tool_use_id: str) -> None:
        """A decision about ``tool_use_id`` was made: its messages are rewritten."""
        self._dirty.update(self._at.get(tool_use_id, ()))

    # --- contents ---------------------------------------------------------------------------
    def _original(self, ref: _Ref) -> str | list[ContentBlock]:
        for block in self._raw[ref.index].content:
            if block.get("type") == "tool_result" and block["tool_use_id"] == ref.tool_use_id:
                return block.get("content", "")
        return ""

    def content(self, ref: _Ref) -> str | list[ContentBlock]:
        """What ``ref`` is sent with, by the decisions made so far."""
        return self._sent(ref.tool_use_id, ref.tool_name, self._original(ref))

    def _sent(self, tool_use_id: str, tool_name: str, original: str | list[ContentBlock]) -> str | list[ContentBlock]:
        if tool_use_id in self.microcompact.cleared_ids and tool_name in self.compactable_tools:
            return CLEARED_MESSAGE
        if tool_use_id in self.replacement.replacements:
            return self.replacement.replacements[tool_use_id]
        line = self.images.evicted.get(tool_use_id)
        return original if line is None else evicted_content(original, line)

    # --- the result budget ------------------------------------------------------------------
    def decide_budget(
        self, *, budget_chars: int, skip: frozenset[str], results_dir: Path | None
    ) -> list[ContentReplacementRecord]:
        """Decide the fresh results of each batch that has some (see ``content_replacement``)."""
        state = self.replacement
        groups = dict.fromkeys(
            r.group
            for r in self._fresh
            if r.tool_use_id not in state.seen_ids
            and r.tool_use_id not in state.replacements
            and is_replaceable(r.tool_name, self.content(r), skip)
        )
        decided: list[ContentReplacementRecord] = []
        for group in groups:
            members = [
                (r.tool_use_id, content)
                for r in self._groups[group]
                if r.tool_use_id not in state.replacements and is_replaceable(r.tool_name, content := self.content(r), skip)
            ]
            records = decide_batch(members, state, budget_chars, results_dir=results_dir)
            for record in records:
                if record.replacement is not None:
                    self._touch(record.tool_use_id)
            decided += records
        return decided

    # --- microcompact -----------------------------------------------------------------------
    def _register(self) -> None:
        """Fresh results join the live lists with what clearing or evicting them would save."""
        for ref in self._fresh:
            if ref.tool_use_id in self.microcompact.cleared_ids:
                continue
            content = self.content(ref)
            if ref.tool_name in self.compactable_tools and content != CLEARED_MESSAGE:
                ref.gain = clear_gain(content)
                self._live.append(ref)
                self._live_gain += max(0, ref.gain)
            ref.images, ref.image_bytes = image_size(content)
            if ref.images:
                self._live_images.append(ref)
        self._fresh = []

    def clearable_tokens(self, keep_recent: int) -> int:
        """Tokens a triggered microcompact would free now."""
        self._register()
        recent = self._live[len(self._live) - max(0, keep_recent) :] if keep_recent > 0 else []
        return self._live_gain - sum(max(0, r.gain) for r in recent)

    def clear(self, keep_recent: int) -> tuple[list[str], dict[int, int]]:
        """Clear all but the ``keep_recent`` newest live results; returns the newly cleared
        ids and the tokens freed per message index."""
        self._register()
        cut = max(0, len(self._live) - max(0, keep_recent))
        newly: list[str] = []
        freed: dict[int, int] = {}
        small: list[_Ref] = []
        for ref in self._live[:cut]:
            if ref.gain <= 0:
                small.append(ref)  # nothing to gain: stays live until a later clear
                continue
            self.microcompact.cleared_ids.add(ref.tool_use_id)
            newly.append(ref.tool_use_id)
            freed[ref.index] = freed.get(ref.index, 0) + ref.gain
            self._touch(ref.tool_use_id)
        if newly:
            cleared = self.microcompact.cleared_ids
            self._live = [r for r in [*small, *self._live[cut:]] if r.tool_use_id not in cleared]
            self._live_gain = sum(max(0, r.gain) for r in self._live)
            self._live_images = [r for r in self._live_images if r.tool_use_id not in cleared]
        return newly, freed

    # --- the image window -------------------------------------------------------------------
    def evict_images(self, *, keep: int, byte_budget: int, cell_start: bool, results_dir: Path | None) -> dict[str, str]:
        """Evict old images per ``images.choose_evictions``; returns id → placeholder line."""
        self._register()
        live = [ImageRef(tool_use_id=r.tool_use_id, images=r.images, bytes=r.image_bytes) for r in self._live_images]
        chosen = choose_evictions(live, keep=keep, byte_budget=byte_budget, cell_start=cell_start)
        if not chosen:
            return {}
        evicted: dict[str, str] = {}
        for tool_use_id in chosen:
            ref = self._by_id[tool_use_id]
            line = placeholder(self._original(ref), tool_use_id, results_dir)
            self.images.evicted[tool_use_id] = line
            evicted[tool_use_id] = line
            self._touch(tool_use_id)
            if ref.tool_name in self.compactable_tools and ref.tool_use_id not in self.microcompact.cleared_ids:
                # a compactable result: clearing it now frees less
                gain = clear_gain(self.content(ref))
                self._live_gain += max(0, gain) - max(0, ref.gain)
                ref.gain = gain
        self._live_images = self._live_images[len(chosen) :]
        return evicted

    # --- output -----------------------------------------------------------------------------
    def window(self) -> list[Any]:
        """The window with every decision applied (a new list)."""
        self._register()
        for index in sorted(self._dirty):
            self._out[index] = self._rewritten(self._raw[index])
        self._dirty.clear()
        return list(self._out)

    def _rewritten(self, message: Any) -> Any:
        """``message`` (an original) with each decided tool_result's content as sent."""
        blocks: list[ContentBlock] = []
        changed = False
        for block in message.content:
            if block.get("type") == "tool_result" and self._decided(block["tool_use_id"]):
                tool_use_id = block["tool_use_id"]
                sent = self._sent(tool_use_id, self._owner.get(tool_use_id, ("", ""))[0], block.get("content", ""))
                if sent != block.get("content"):
                    block = {**block, "content": sent}
                    changed = True
            blocks.append(block)
        return replace(message, content=blocks) if changed else message


__all__ = ["ToolResultRewrites"]
