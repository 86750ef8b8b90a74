"""Nested memory as attachments: the memory a turn's file reads bring, for the next turn."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from nb_agent.memory.files import MemoryFile
from nb_agent.memory.nested import NESTED_MEMORY_KIND
from nb_agent.messages import AttachmentMessage
from nb_agent.permissions.rules import tool_family
from nb_agent.tools.base import Tool, find_tool

__all__ = ["file_of_call", "nested_memory_attachments"]


def file_of_call(tools: Sequence[Tool[Any]], block: dict[str, Any], *, cwd: Path) -> Path | None:
    """The file a file tool's call read or wrote (None for other tools and bad input)."""
    tool = find_tool(tools, block["name"])
    if tool is None or tool_family(tool) not in ("file_read", "file_edit"):
        return None
    try:
        raw = tool.permission_rule_content(tool.parse_input(block["input"]))
    except Exception:  # noqa: BLE001 - an input the tool refused names no file
        return None
    return Path(os.path.join(cwd, os.path.expanduser(raw))) if raw else None


def nested_memory_attachments(
    tool_use_blocks: Sequence[dict[str, Any]],
    tool_results: Sequence[Any],
    *,
    tools: Sequence[Tool[Any]],
    cwd: Path,
    nested_memory: Callable[[Path], list[MemoryFile]],
) -> list[AttachmentMessage]:
    """One attachment per memory file the turn's successful file-tool calls bring."""
    failed = {
        block["tool_use_id"]
        for message in tool_results
        if message.type == "user" and isinstance(message.content, list)
        for block in message.content
        if block.get("type") == "tool_result" and block.get("is_error")
    }
    attachments = []
    for block in tool_use_blocks:
        path = None if block["id"] in failed else file_of_call(tools, block, cwd=cwd)
        for memory in nested_memory(path) if path is not None else ():
            attachments.append(AttachmentMessage(kind=NESTED_MEMORY_KIND, content=memory.as_context()))
    return attachments
