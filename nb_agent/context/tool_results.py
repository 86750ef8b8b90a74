"""Finding and rewriting tool_result blocks in runtime messages (shared by the tiers)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any

from nb_agent.messages import ContentBlock, UserMessage


@dataclass(frozen=True, kw_only=True)
class ToolResultRef:
    """One tool_result block: where it is and what answered it."""

    message_index: int
    tool_use_id: str
    tool_name: str
    content: str | list[ContentBlock]
    group: str
    """The response whose tool_use it answers: results of one response are sent together,
    in one API user turn, however the history interleaves them (streaming execution)."""


def tool_names_by_id(messages: list[Any]) -> dict[str, str]:
    return {b["id"]: b.get("name", "") for m in messages if m.type == "assistant" for b in m.tool_uses}


def _add_owners(owner: dict[str, tuple[str, str]], messages: list[Any]) -> None:
    """Record which response (name, message id) each tool_use in ``messages`` belongs to."""
    for message in messages:
        if message.type == "assistant":
            for block in message.tool_uses:
                owner[block["id"]] = (block.get("name", ""), message.message_id)


def _refs(messages: list[Any], owner: dict[str, tuple[str, str]], start: int = 0) -> Iterator[ToolResultRef]:
    for index, message in enumerate(messages, start):
        if message.type != "user" or isinstance(message.content, str):
            continue
        for block in message.content:
            if block.get("type") == "tool_result":
                tool_use_id = block["tool_use_id"]
                name, response = owner.get(tool_use_id, ("", f"orphan:{index}"))
                yield ToolResultRef(
                    message_index=index,
                    tool_use_id=tool_use_id,
                    tool_name=name,
                    content=block.get("content", ""),
                    group=response,
                )


def tool_result_ids(messages: list[Any]) -> set[str]:
    """The ids of every tool_result in ``messages`` (what a resume checks decisions against)."""
    return {
        block["tool_use_id"]
        for message in messages
        if message.type == "user" and not isinstance(message.content, str)
        for block in message.content
        if block.get("type") == "tool_result"
    }


def iter_tool_results(messages: list[Any]) -> Iterator[ToolResultRef]:
    """Every tool_result in ``messages``, oldest first."""
    owner: dict[str, tuple[str, str]] = {}
    _add_owners(owner, messages)
    return _refs(messages, owner)


def with_tool_result_contents(message: UserMessage, contents: Mapping[str, str | list[ContentBlock]]) -> UserMessage:
    """A copy of ``message`` whose tool_results named in ``contents`` carry the new content.

    Returns ``message`` itself when nothing changes (so re-applying is free and keeps
    identity)."""
    if isinstance(message.content, str):
        return message
    changed = False
    blocks: list[ContentBlock] = []
    for block in message.content:
        if block.get("type") == "tool_result" and block["tool_use_id"] in contents:
            new = contents[block["tool_use_id"]]
            if block.get("content") != new:
                block = {**block, "content": new}
                changed = True
        blocks.append(block)
    return replace(message, content=blocks) if changed else message


def rewrite_tool_results(
    messages: list[Any], contents: Mapping[str, str | list[ContentBlock]], refs: Iterable[ToolResultRef] | None = None
) -> list[Any]:
    """``messages`` with the named tool_results' contents replaced (a new list).

    ``refs`` (the refs of ``messages``) limits the rewrite to the messages holding them."""
    if not contents:
        return messages
    if refs is not None:
        out = list(messages)
        for index in sorted({r.message_index for r in refs if r.tool_use_id in contents}):
            out[index] = with_tool_result_contents(out[index], contents)
        return out
    out = []
    for message in messages:
        if message.type == "user" and not isinstance(message.content, str):
            message = with_tool_result_contents(message, contents)
        out.append(message)
    return out


def safe_cut_points(messages: list[Any]) -> list[bool]:
    """``ok[i]`` is True when cutting before ``messages[i]`` (keeping ``messages[i:]``)
    separates no tool_use from its tool_result. ``len(ok) == len(messages) + 1``."""
    use_at: dict[str, int] = {}
    for index, message in enumerate(messages):
        if message.type == "assistant":
            for block in message.tool_uses:
                use_at[block["id"]] = index
    unsafe = [0] * (len(messages) + 2)
    for ref in iter_tool_results(messages):
        start = use_at.get(ref.tool_use_id)
        if start is not None and start < ref.message_index:
            unsafe[start + 1] += 1
            unsafe[ref.message_index + 1] -= 1
    ok: list[bool] = []
    running = 0
    for i in range(len(messages) + 1):
        running += unsafe[i]
        ok.append(running == 0)
    return ok


def is_user_prompt(message: Any) -> bool:
    """A message the user typed (not a tool result, not a runtime-injected meta message)."""
    if message.type != "user" or message.is_meta:
        return False
    if isinstance(message.content, str):
        return True
    return not any(b.get("type") == "tool_result" for b in message.content)


def last_prompt_index(messages: list[Any]) -> int:
    """Where the last submission starts: the index of the last message the user typed
    (0 when there is none)."""
    for index in range(len(messages) - 1, -1, -1):
        if is_user_prompt(messages[index]):
            return index
    return 0


__all__ = [
    "ToolResultRef",
    "is_user_prompt",
    "iter_tool_results",
    "last_prompt_index",
    "rewrite_tool_results",
    "safe_cut_points",
    "tool_names_by_id",
    "tool_result_ids",
    "with_tool_result_contents",
]
