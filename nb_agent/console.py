"""A plain-text consumer of the engine's event stream (terminals, logs, examples)."""

from __future__ import annotations

import json
import sys
from typing import Any, TextIO

from nb_agent.messages import INTERRUPT_MESSAGE


def _key_input(block: dict[str, Any]) -> str:
    data = block.get("input") or {}
    for key in ("command", "file_path", "pattern", "code", "notebook_path", "query"):
        if key in data:
            return str(data[key]).splitlines()[0][:120] if data[key] else ""
    return json.dumps(data)[:120]


def _result_text(block: dict[str, Any]) -> str:
    content = block.get("content")
    if isinstance(content, list):
        content = " ".join(b.get("text", f"[{b.get('type')}]") for b in content)
    return str(content or "")


class ConsoleRenderer:
    """Prints answers, tool calls and outcomes as plain text."""

    def __init__(self, out: TextIO | None = None, *, stream_text: bool = True) -> None:
        self.out = out or sys.stdout
        self.stream_text = stream_text
        self._tools: dict[str, str] = {}

    def __call__(self, event: Any) -> None:
        kind = getattr(event, "type", None)
        handler = getattr(self, f"_on_{kind}", None)
        if handler is not None:
            handler(event)

    def _write(self, text: str) -> None:
        self.out.write(text)
        self.out.flush()

    def _on_stream_event(self, event: Any) -> None:
        raw = event.event
        if self.stream_text and raw.type == "content_block_delta" and raw.delta.type == "text_delta":
            self._write(raw.delta.text)

    def _on_assistant(self, message: Any) -> None:
        if message.is_api_error_message:
            self._write(f"\n[error] {message.text}\n")
            return
        for block in message.content:
            if block["type"] == "text":
                self._write(block["text"] + "\n" if not self.stream_text else "\n")
            elif block["type"] == "tool_use":
                self._tools[block["id"]] = block["name"]
                self._write(f"\n● {block['name']}({_key_input(block)})\n")

    def _on_user(self, message: Any) -> None:
        if isinstance(message.content, str):
            return
        for block in message.content:
            if block.get("type") != "tool_result":
                continue
            text = _result_text(block)
            status = "interrupted" if INTERRUPT_MESSAGE in text else ("error" if block.get("is_error") else "done")
            first = text.strip().splitlines()[0][:160] if text.strip() else ""
            self._write(f"  ⎿ {status}: {first}\n")

    def _on_system(self, message: Any) -> None:
        self._write(f"[{message.level}] {message.content}\n")

    def _on_result(self, result: Any) -> None:
        self._write(
            f"\n— {result.subtype} · {result.num_turns} turn(s) · "
            f"{result.usage.input_tokens} in / {result.usage.output_tokens} out · ${result.total_cost_usd:.4f}\n"
        )
