"""``%agent result ID``: the whole result of a tool call. The saved rendering of a run keeps
the first 2,000 characters of a result and names this command for the rest."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nb_agent.transcript_lines import is_message_line
from nb_agent.wording import plural

if TYPE_CHECKING:
    from nb_agent.jupyter.session import KernelAgentSession

_PERSISTED_FILE = re.compile(r"Full output saved to: (.+)\n")
"""How a result too large for the context names the file that holds it whole."""


def result(session: KernelAgentSession, tool_use_id: str | None) -> None:
    """Print the result of the call ``tool_use_id`` (a prefix is enough): from this
    conversation, else from the saved sessions; a result kept in a file, from the file."""
    from nb_agent.jupyter.view.run_state import result_parts

    wanted = (tool_use_id or "").strip()  # required: the table's parser gives one
    engine = session.engine
    content = _in_messages(engine.messages if engine is not None else [], wanted)
    if content is None:
        content = _in_transcripts(session.sessions_dir(), wanted)
    if content is None:
        print(f"No result of a tool call {wanted!r} in this conversation or in the saved sessions of {session.sessions_dir()}.")
        return
    text, images = result_parts(content)
    saved = _PERSISTED_FILE.search(text)
    if saved is not None and Path(saved.group(1)).is_file():
        text = Path(saved.group(1)).read_text(encoding="utf-8", errors="replace")
    print(text)
    if images:
        print(f"[{plural(len(images), 'image')}, not shown here]")


def _tool_result(content: Any, wanted: str) -> Any | None:
    if not isinstance(content, list):
        return None
    for block in content:
        if isinstance(block, dict) and block.get("type") == "tool_result" and str(block.get("tool_use_id", "")).startswith(wanted):
            return block.get("content", "")
    return None


def _in_messages(messages: list[Any], wanted: str) -> Any | None:
    for message in reversed(messages):
        if getattr(message, "type", None) == "user" and (found := _tool_result(message.content, wanted)) is not None:
            return found
    return None


def _in_transcripts(directory: Path, wanted: str) -> Any | None:
    """The result in the newest saved session holding it (only lines naming the id are parsed)."""
    if not directory.is_dir():
        return None
    needle = wanted.encode()
    paths = sorted((p for p in directory.glob("*.jsonl") if p.is_file()), key=lambda p: p.stat().st_mtime, reverse=True)
    for path in paths:
        raw = path.read_bytes()
        if needle not in raw:
            continue
        for line in reversed(raw.split(b"\n")):
            if needle in line and is_message_line(line):
                message = json.loads(line).get("message", {})
                if message.get("type") == "user" and (found := _tool_result(message.get("content"), wanted)) is not None:
                    return found
    return None
