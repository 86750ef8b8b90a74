"""Plain-text rendering of a run, for terminal IPython (no kernel, no widgets).

Assistant text is printed as it streams; each tool call gets a line when it starts and
one when it ends; approvals are asked on stdin.
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any, TextIO

from nb_agent.jupyter.static_render import stop_notice
from nb_agent.jupyter.view.approval import permission_result
from nb_agent.jupyter.view.change_render import change_text
from nb_agent.jupyter.view.glyphs import STOP, TOOL_CALL, TOOL_RESULT
from nb_agent.jupyter.view.run_state import Item, Notice, RunState, TextBlock, ToolCall, input_preview
from nb_agent.jupyter.view.status_line import duration
from nb_agent.permissions.types import PermissionDeny, PermissionRequest, PermissionResult


class TextAgentView:
    def __init__(self, state: RunState, *, out: TextIO | None = None) -> None:
        self.state = state
        self._out = out or sys.stdout  # bound now: ExecuteCode swaps sys.stdout while code runs
        self._printed: dict[int, int] = {}
        self._status: dict[int, str] = {}
        self._last_text: TextBlock | None = None
        self._held: Notice | None = None
        """A model error, printed when something follows it: when the run ends on it instead,
        the cell's error line says it (:attr:`RunState.said_by_cell`)."""
        state.listeners.append(self._on_change)

    @property
    def out(self) -> TextIO:
        return self._out

    def _write(self, text: str) -> None:
        held, self._held = self._held, None
        if held is not None:
            text = f"[{held.level}] {held.text}\n{text}"
        self.out.write(text)
        self.out.flush()

    def _end_text(self) -> None:
        if self._last_text is not None:
            self._write("\n")
            self._last_text = None

    def _on_change(self, what: str, item: Item) -> None:
        if isinstance(item, Notice) and item.subtype == "api_error" and what == "add":
            self._end_text()
            self._write("")  # one held before it goes out
            self._held = item
            return
        if what == "remove":
            if isinstance(item, TextBlock) and self._printed.get(item.key):
                self._write("\n[withdrawn: the model was switched]\n")
            return
        if isinstance(item, TextBlock):
            if item.kind != "text":
                return
            text = item.text
            done = self._printed.get(item.key, 0)
            if len(text) > done:
                if self._last_text is not item:
                    self._end_text()
                self._write(text[done:])
                self._printed[item.key] = len(text)
                self._last_text = item
        elif isinstance(item, ToolCall):
            if self._status.get(item.key) == item.status:
                return
            self._status[item.key] = item.status
            self._end_text()
            if item.finished:
                elapsed = item.elapsed()
                timing = f" ({duration(elapsed)})" if elapsed is not None else ""
                first = item.result_text.strip().splitlines()[:1]
                detail = f": {first[0][:160]}" if first and item.status != "done" else ""
                self._write(f"  {TOOL_RESULT} {item.status}{timing}{detail}\n")
            elif item.status in ("running", "waiting for approval") and item.input_complete:
                self._write(f"{TOOL_CALL} {item.name}({input_preview(item, limit=160)})\n")
        elif isinstance(item, Notice):
            self._end_text()
            self._write(f"[{item.level}] {item.text}\n")

    def tick(self) -> int:
        return 0

    def finish(self, bundle: dict[str, Any]) -> None:
        self._end_text()
        if self._on_change in self.state.listeners:
            self.state.listeners.remove(self._on_change)
        if self._held is not None and self.state.said_at_the_end(self._held):
            self._held = None
        self._write("")
        if self.state.interrupted and self.state.said_by_cell is None:  # else the cell's error line says it
            self._write(f"{STOP} {stop_notice(self.state)}\n")
        if self.state.summary:
            self._write(f"[{self.state.summary}]\n")

    def push_live_output(self, tool_name: str, progress: dict[str, Any]) -> None:
        pass


class TextApprover:
    """``CanUseTool`` that asks on stdin: [y]es, [a]lways, [n]o (then optional feedback)."""

    def __init__(self, view: TextAgentView) -> None:
        self.view = view

    async def __call__(self, tool: Any, request: PermissionRequest, ctx: Any) -> PermissionResult:
        card = self.view.state.ask_for(request)
        rule = f", [a]lways allow ({request.suggested_rule})" if request.suggested_rule else ""
        change = f"{change_text(request.change)}\n" if request.change is not None else ""
        prompt = f"{change}{request.message}\nAllow {request.tool_name}? [y]es{rule}, [n]o: "
        loop = asyncio.get_running_loop()
        try:
            reply = (await loop.run_in_executor(None, input, prompt)).strip().lower()
        except (EOFError, OSError):
            return PermissionDeny(message="No one could be asked for permission (no input available).")
        if reply.startswith("a") and request.suggested_rule:
            answer, feedback = "always_allow", ""
        elif reply.startswith("y"):
            answer, feedback = "allow", ""
        else:
            feedback = (await loop.run_in_executor(None, input, "Feedback for the model (optional): ")).strip()
            answer = "deny"
        self.view.state.answer(card, answer, feedback)
        return permission_result(answer, feedback, request)
