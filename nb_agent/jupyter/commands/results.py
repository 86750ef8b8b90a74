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

_PERSISTED_FILE = re.compile(r"\AOutput too large \([^)\n]*\)\. Full output saved to: (.+)\n")
"""How a result too large for the context names the file that holds it whole
(``context/tool_result_storage.py``): only at the start of the result, and only a file named
after the call's own id is read, so a result that merely prints such a line names nothing."""


def result(session: KernelAgentSession, tool_use_id: str | None) -> None:
    """Print the result of the call ``tool_use_id`` (a prefix is enough): from this
    conversation, else from the saved sessions; a result kept in a file, from the file."""
    from nb_agent.jupyter.view.run_state import result_parts

    wanted = (tool_use_id or "").strip()  # required: the table's parser gives one
    engine = session.engine
    found = _in_messages(engine.messages if engine is not None else [], wanted)
    if found is None:
        found = _in_transcripts(session.sessions_dir(), wanted)
    if found is None:
        print(f"No result of a tool call {wanted!r} in this conversation or in the saved sessions of {session.sessions_dir()}.")
        return
    call_id, content = found
    text, images = result_parts(content)
    saved = _PERSISTED_FILE.match(text)
    if saved is not None:
        path = Path(saved.group(1))
        if path.stem == call_id and path.suffix in (".txt", ".json") and path.is_file():
            text = path.read_text(encoding="utf-8", errors="replace")
    print(text)
    if images:
        print(f"[{plural(len(images), 'image')}, not shown here]")


def _tool_result(content: Any, wanted: str) -> tuple[str, Any] | None:
    """``(the call's full id, its result content)`` of the first result whose id starts with ``wanted``."""
    if not isinstance(content, list):
        return None
    for block in content:
        if isinstance(block, dict) and block.get("type") == "tool_result" and str(block.get("tool_use_id", "")).startswith(wanted):
            return str(block.get("tool_use_id")), block.get("content", "")
    return None


def _in_messages(messages: list[Any], wanted: str) -> tuple[str, Any] | None:
    for message in reversed(messages):
        if getattr(message, "type", None) == "user" and (found := _tool_result(message.content, wanted)) is not None:
            return found
    return None


def _in_transcripts(directory: Path, wanted: str) -> tuple[str, Any] | None:
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
