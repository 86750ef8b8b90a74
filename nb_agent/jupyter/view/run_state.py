"""What one ``%%agent`` run looks like, as plain data built from the engine's events.

:class:`RunState` consumes the event stream (stream events, per-block assistant
messages, tool results, progress, notices, tombstones) and keeps an ordered list of
items: text and thinking blocks, one :class:`ToolCall` per tool_use, notices. Renderers
(widgets, plain text, the static rendering) only read it; they learn what changed
through listeners. No IPython, no widgets here.
"""

from __future__ import annotations

import itertools
import json
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from nb_agent.jupyter.html import markdown
from nb_agent.jupyter.view.interaction_render import preview
from nb_agent.jupyter.view.markdown_stream import MarkdownStream, thinking_html
from nb_agent.jupyter.view.subagent import SubagentView
from nb_agent.model.retry import RETRY_NOTICE_SUBTYPE

if TYPE_CHECKING:
    from nb_agent.tools.files.change_preview import ChangePreview

INTERRUPT_TEXT = "Interrupted by user"
STOP_HOOK_FEEDBACK_PREFIX = "Stop hook feedback:"
"""How the loop's message to the model starts when a Stop hook blocks the end of a turn."""

ToolStatus = Literal["queued", "waiting for approval", "running", "done", "error", "denied", "interrupted"]
FINAL_STATUSES = frozenset({"done", "error", "denied", "interrupted"})

_keys = itertools.count(1)


def _new_key() -> int:
    return next(_keys)


@dataclass(eq=False, kw_only=True)
class TextBlock:
    """Assistant text (``kind="text"``) or thinking, streamed then finalized exactly."""

    kind: Literal["text", "thinking"]
    stream: MarkdownStream = field(init=False)
    """Rendered as Markdown (an answer) or as written (thinking)."""
    uuid: str | None = None
    key: int = field(default_factory=_new_key)

    def __post_init__(self) -> None:
        self.stream = MarkdownStream(render=markdown if self.kind == "text" else thinking_html)

    @property
    def text(self) -> str:
        return self.stream.text

    @property
    def finished(self) -> bool:
        return self.stream.finished


@dataclass(eq=False, kw_only=True)
class Notice:
    level: Literal["info", "warning", "error"]
    text: str
    subtype: str = ""
    key: int = field(default_factory=_new_key)


@dataclass(eq=False, kw_only=True)
class Approval:
    """An *ask* shown on a card, and the user's answer once given."""

    message: str
    suggested_rule: str | None
    answer: Literal["allow", "always_allow", "deny"] | None = None
    feedback: str = ""
    source: Literal["user", "preset"] = "user"
    """Who answered: the user (a click, stdin) or the cell's ``--answer`` list."""


@dataclass(eq=False, kw_only=True)
class ToolCall:
    tool_use_id: str
    name: str
    input: dict[str, Any] = field(default_factory=dict)
    input_complete: bool = False
    concurrency_safe: bool = False
    status: ToolStatus = "queued"
    started_at: float | None = None
    ended_at: float | None = None
    progress: dict[str, Any] = field(default_factory=dict)
    result_text: str = ""
    result_images: list[tuple[str, str]] = field(default_factory=list)
    """``(media_type, base64 data)`` of image blocks in the result."""
    is_error: bool = False
    structured: Any = None
    """The tool's structured output (``tool_use_result``), e.g. Edit's diff."""
    approval: Approval | None = None
    change: ChangePreview | None = None
    """What the call changes (or, while it waits for approval, would): a diff, a cell before and after."""
    agent: str | None = None
    """The subagent that asked for this call (an approval card), if not the main agent."""
    subagent: Any = None
    """For an Agent call: its :class:`~nb_agent.jupyter.view.subagent.SubagentView`."""
    uuid: str | None = None
    key: int = field(default_factory=_new_key)

    @property
    def finished(self) -> bool:
        return self.status in FINAL_STATUSES

    def elapsed(self, now: float | None = None) -> float | None:
        if self.started_at is None:
            return None
        end = self.ended_at if self.ended_at is not None else (time.monotonic() if now is None else now)
        return max(0.0, end - self.started_at)


Item = TextBlock | ToolCall | Notice
Listener = Callable[[str, Item], None]
"""Called as ``(what, item)`` with ``what`` in ``add``, ``change``, ``remove``."""


def _get(obj: Any, name: str, default: Any = None) -> Any:
    if isinstance(obj, dict):
        return obj.get(name, default)
    return getattr(obj, name, default)


def result_parts(content: Any) -> tuple[str, list[tuple[str, str]]]:
    """The text and images of a tool_result's ``content``."""
    if isinstance(content, str):
        return content, []
    texts: list[str] = []
    images: list[tuple[str, str]] = []
    for block in content or []:
        kind = _get(block, "type")
        if kind == "text":
            texts.append(_get(block, "text", ""))
        elif kind == "image":
            source = _get(block, "source", {}) or {}
            if _get(source, "type") == "base64":
                images.append((_get(source, "media_type", "image/png"), _get(source, "data", "")))
        elif kind is not None:
            texts.append(f"[{kind}]")
    return "\n".join(texts), images


class RunState:
    """The items of one run, built from engine events."""

    def __init__(
        self,
        *,
        model: str = "",
        tool_lookup: Callable[[str], Any] | None = None,
        is_denied: Callable[[str], bool] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.items: list[Item] = []
        self.model = model
        self.turn = 0
        self.started_at = clock()
        self.ended_at: float | None = None
        self.interrupted = False
        self.stop_reason: str | None = None
        """Why an interrupted run stopped, when it was not the user's Stop (a kernel restart)."""
        self.summary = ""
        """The finished run in one line (model, tokens, cost, time): it stays below the cell."""
        self.said_by_cell: str | None = None
        """The line the cell's error output says about how the run ended (the user's Stop, a
        failure): the renderings of the run leave that to it, so it is said once."""
        self.result: Any = None
        self._clock = clock
        self._tool_lookup = tool_lookup or (lambda name: None)
        self._is_denied = is_denied or (lambda tool_use_id: False)
        self._cards: dict[str, ToolCall] = {}
        self._open: dict[int, Item] = {}
        """Streamed blocks of the current response, by content index."""
        self._awaiting: deque[Item] = deque()
        """Streamed blocks whose content_block_stop came; their AssistantMessage is next."""
        self.listeners: list[Listener] = []

    # --- notifications -------------------------------------------------------------------
    def _emit(self, what: str, item: Item) -> None:
        for listener in list(self.listeners):
            listener(what, item)

    def _add(self, item: Item) -> Item:
        self.items.append(item)
        if isinstance(item, ToolCall):
            self._cards[item.tool_use_id] = item
        self._emit("add", item)
        return item

    def _remove(self, item: Item) -> None:
        if item in self.items:
            self.items.remove(item)
            if isinstance(item, ToolCall):
                self._cards.pop(item.tool_use_id, None)
            self._emit("remove", item)

    def changed(self, item: Item) -> None:
        self._emit("change", item)

    # --- queries -------------------------------------------------------------------------
    def card(self, tool_use_id: str) -> ToolCall | None:
        return self._cards.get(tool_use_id)

    @property
    def cards(self) -> list[ToolCall]:
        return [i for i in self.items if isinstance(i, ToolCall)]

    @property
    def answer_text(self) -> str:
        """All assistant text of the run, blocks separated by blank lines."""
        return "\n\n".join(i.text for i in self.items if isinstance(i, TextBlock) and i.kind == "text" and i.text)

    def elapsed(self) -> float:
        end = self.ended_at if self.ended_at is not None else self._clock()
        return max(0.0, end - self.started_at)

    # --- events --------------------------------------------------------------------------
    def on_event(self, event: Any) -> None:
        kind = getattr(event, "type", None)
        handler = getattr(self, f"_on_{kind}", None)
        if handler is not None:
            handler(event)

    def _on_stream_request_start(self, event: Any) -> None:
        self.turn += 1
        if event.model:
            self.model = event.model
        # A block still open here belongs to a response that broke off (retry, fallback).
        for item in list(self._open.values()):
            if not (isinstance(item, ToolCall) and item.input_complete):
                self._remove(item)
        self._open.clear()
        self._awaiting.clear()

    def _on_stream_event(self, wrapper: Any) -> None:
        event = wrapper.event
        kind = event.type
        if kind == "content_block_delta":
            item = self._open.get(event.index)
            delta = event.delta
            if isinstance(item, TextBlock):
                piece = getattr(delta, "text", None) if delta.type == "text_delta" else getattr(delta, "thinking", None)
                if piece:
                    item.stream.append(piece)
                    self.changed(item)
        elif kind == "content_block_start":
            block = event.content_block
            if block.type in ("text", "thinking"):
                self._open[event.index] = self._add(TextBlock(kind=block.type))
            elif block.type == "tool_use":
                card = self._cards.get(block.id) or self._add(ToolCall(tool_use_id=block.id, name=block.name))
                self._open[event.index] = card
        elif kind == "content_block_stop":
            item = self._open.pop(event.index, None)
            if item is not None:
                self._awaiting.append(item)
        elif kind == "message_start":
            self._open.clear()
            self._drop_retry_notices()  # the retry worked

    def _take_awaiting(self, match: Callable[[Item], bool]) -> Item | None:
        for item in self._awaiting:
            if match(item):
                self._awaiting.remove(item)
                return item
        return None

    def _on_assistant(self, message: Any) -> None:
        if message.is_api_error_message:
            self._drop_retry_notices()  # the error says how the retries ended
            self._add(Notice(level="error", text=message.text or "The model request failed.", subtype="api_error"))
            return
        for block in message.content:
            kind = block.get("type")
            if kind in ("text", "thinking"):
                item = self._take_awaiting(lambda i, k=kind: isinstance(i, TextBlock) and i.kind == k)
                if item is None:
                    item = self._add(TextBlock(kind=kind))
                assert isinstance(item, TextBlock)
                item.stream.finish(block.get(kind, ""))
                item.uuid = message.uuid
                self.changed(item)
            elif kind == "tool_use":
                self._take_awaiting(lambda i, tid=block["id"]: isinstance(i, ToolCall) and i.tool_use_id == tid)
                card = self._cards.get(block["id"]) or self._add(ToolCall(tool_use_id=block["id"], name=block["name"]))
                assert isinstance(card, ToolCall)
                card.input = dict(block.get("input") or {})
                card.input_complete = True
                card.uuid = message.uuid
                card.concurrency_safe = self._is_concurrency_safe(card)
                self.changed(card)
                self._schedule()

    def _is_concurrency_safe(self, card: ToolCall) -> bool:
        tool = self._tool_lookup(card.name)
        if tool is None:
            return True  # unknown tools complete at once
        try:
            return bool(tool.is_concurrency_safe(tool.parse_input(card.input)))
        except Exception:  # noqa: BLE001 - as the executor: unparsable means unsafe
            return False

    def _schedule(self) -> None:
        """Mirror the executor: a queued call starts when nothing runs, or when it and
        everything running are concurrency-safe; the scan stops at a blocked unsafe call."""
        executing = [c for c in self.cards if c.status in ("running", "waiting for approval")]
        for card in self.cards:
            if card.status != "queued" or not card.input_complete:
                continue
            if not executing or (card.concurrency_safe and all(c.concurrency_safe for c in executing)):
                self._start(card)
                executing.append(card)
            elif not card.concurrency_safe:
                break

    def _start(self, card: ToolCall) -> None:
        card.status = "running"
        card.started_at = self._clock()
        self.changed(card)

    def _on_progress(self, message: Any) -> None:
        card = self._cards.get(message.tool_use_id)
        if card is None or card.finished:
            return
        if card.status == "queued":
            card.started_at = self._clock()
            card.status = "running"
        data = message.data or {}
        if "subagent_id" in data:
            self._on_subagent(card, data)
        else:
            card.progress = dict(data)
        self.changed(card)

    def _on_subagent(self, card: ToolCall, data: dict[str, Any]) -> None:
        if card.subagent is None:
            card.subagent = SubagentView(
                agent_id=data["subagent_id"],
                agent_type=data.get("subagent_type") or str(card.input.get("subagent_type") or "general-purpose"),
                description=str(card.input.get("description") or ""),
                state=RunState(model=self.model, clock=self._clock),
            )
        event = card.subagent.take(data["subagent_event"]) if "subagent_event" in data else None
        if getattr(event, "type", None) == "user":
            self._on_user(event)  # a subagent's call that asked has its approval card up here

    def _on_user(self, message: Any) -> None:
        if isinstance(message.content, str):
            if message.is_meta and message.content.startswith(STOP_HOOK_FEEDBACK_PREFIX):
                self._add(Notice(level="warning", text=message.content, subtype="stop_hook"))
            return
        for block in message.content:
            if block.get("type") != "tool_result":
                continue
            card = self._cards.get(block["tool_use_id"])
            if card is None:
                continue
            text, images = result_parts(block.get("content"))
            card.result_text = text
            card.result_images = images
            card.is_error = bool(block.get("is_error"))
            card.structured = message.tool_use_result
            card.status = self._outcome(card, text)
            if card.name == "Agent" and hasattr(card.structured, "agent_type"):
                self._end_subagent(card)
            if card.started_at is None:
                card.started_at = self._clock()
            card.ended_at = self._clock()
            self.changed(card)
        self._schedule()

    def _end_subagent(self, card: ToolCall) -> None:
        outcome = card.structured
        if card.subagent is None:
            card.subagent = SubagentView(
                agent_id=outcome.agent_id, agent_type=outcome.agent_type, description=outcome.description,
                state=RunState(model=self.model, clock=self._clock),
            )  # fmt: skip
        card.subagent.finish_from(outcome)

    def _outcome(self, card: ToolCall, text: str) -> ToolStatus:
        if not card.is_error:
            return "done"
        if card.approval is not None and card.approval.answer == "deny":
            return "denied"
        if self._is_denied(card.tool_use_id):
            return "denied"
        if INTERRUPT_TEXT in text:
            return "interrupted"
        return "error"

    def _on_attachment(self, message: Any) -> None:
        if message.kind == "task_notification":
            first = message.content.replace("<task-notification>", "").strip().splitlines()[0]
            self._add(Notice(level="info", text=f"{first} Its final message was passed to the agent.", subtype="task_notification"))

    def _on_system(self, message: Any) -> None:
        if message.subtype == RETRY_NOTICE_SUBTYPE:
            self._drop_retry_notices()  # one line, the latest attempt's
        self._add(Notice(level=message.level, text=message.content, subtype=message.subtype))

    def _drop_retry_notices(self) -> None:
        """A retry notice says what is going on only until the retry's outcome is known: the
        answer arriving, the next attempt's notice or the run's error says the rest."""
        for item in [i for i in self.items if isinstance(i, Notice) and i.subtype == RETRY_NOTICE_SUBTYPE]:
            self._remove(item)

    def _on_compact_boundary(self, message: Any) -> None:
        self._add(Notice(level="info", text="The conversation was compacted to free context.", subtype="compact"))

    def _on_tool_use_summary(self, message: Any) -> None:
        self._add(Notice(level="info", text=message.summary, subtype="tool_use_summary"))

    def _on_tombstone(self, message: Any) -> None:
        for item in [i for i in self.items if getattr(i, "uuid", None) == message.target_uuid]:
            self._remove(item)

    # --- approvals (called by the approver) ----------------------------------------------
    def ask_for(self, request: Any) -> ToolCall:
        """Show a ``PermissionRequest`` on its card (made here for a subagent's call)."""
        return self.ask(
            request.tool_use_id, name=request.tool_name, input=request.input, message=request.message,
            suggested_rule=request.suggested_rule, agent=getattr(request, "agent", None),
            change=getattr(request, "change", None),
        )  # fmt: skip

    def ask(
        self,
        tool_use_id: str,
        *,
        name: str,
        input: dict[str, Any],
        message: str,
        suggested_rule: str | None,
        agent: str | None = None,
        change: ChangePreview | None = None,
    ) -> ToolCall:
        card = self._cards.get(tool_use_id)
        if card is None:
            card = self._add(ToolCall(tool_use_id=tool_use_id, name=name, input=dict(input), input_complete=True, agent=agent))
            assert isinstance(card, ToolCall)
        card.approval = Approval(message=message, suggested_rule=suggested_rule)
        card.change = change if change is not None else card.change
        if card.started_at is None:
            card.started_at = self._clock()
        card.status = "waiting for approval"
        self.changed(card)
        return card

    def answer(
        self,
        card: ToolCall,
        answer: Literal["allow", "always_allow", "deny"],
        feedback: str = "",
        *,
        source: Literal["user", "preset"] = "user",
    ) -> None:
        if card.approval is None or card.approval.answer is not None:
            return
        card.approval.answer = answer
        card.approval.feedback = feedback
        card.approval.source = source
        if answer != "deny" and not card.finished:
            card.status = "running"
            card.started_at = self._clock()
        self.changed(card)

    def notice(self, level: Literal["info", "warning", "error"], text: str, *, subtype: str = "") -> Notice:
        """Add a notice of nb_agent's own (not from the engine)."""
        notice = self._add(Notice(level=level, text=text, subtype=subtype))
        assert isinstance(notice, Notice)
        return notice

    # --- the end -------------------------------------------------------------------------
    def finish(
        self, *, result: Any = None, interrupted: bool = False, error: str | None = None,
        stop_reason: str | None = None, said_by_cell: str | None = None,
    ) -> None:
        """The run ended; ``said_by_cell``: the cell's error line says how (see :attr:`said_by_cell`).

        A run the kernel's shutdown already ended (``stop_reason``) keeps that ending: the
        cell's own end may still come before the process goes, and must not replace "Stopped
        by a kernel restart" in the cell's last update."""
        if self.stop_reason is not None:
            return
        self.ended_at = self._clock()
        self.said_by_cell = said_by_cell
        self.result = result
        self.interrupted = interrupted or stop_reason is not None
        self.stop_reason = stop_reason
        interrupted = self.interrupted
        for card in self.cards:
            if not card.finished:
                card.status = "interrupted" if interrupted else "error"
                card.ended_at = self.ended_at
                self.changed(card)
        for item in self.items:
            if isinstance(item, TextBlock) and not item.finished:
                item.stream.finish()
                self.changed(item)
        if error:
            self._drop_retry_notices()
            if said_by_cell is None or error not in said_by_cell:
                self._add(Notice(level="error", text=error, subtype="run_error"))

    def said_at_the_end(self, item: Item) -> bool:
        """Whether ``item`` is the run's error that the cell's error line says (left to that line)."""
        return (
            self.said_by_cell is not None and isinstance(item, Notice) and item.level == "error"
            and bool(item.text) and item.text in self.said_by_cell
        )  # fmt: skip


def input_preview(card: ToolCall, limit: int = 200) -> str:
    """The key input of a call, in one line: command, path, code, pattern, else JSON."""
    special = preview(card)
    if special is not None:
        return special if len(special) <= limit else special[: limit - 1] + "…"
    data = card.input
    for key in ("command", "file_path", "notebook_path", "path", "pattern", "url", "query", "name", "code"):
        value = data.get(key)
        if isinstance(value, str) and value:
            text = value.strip().splitlines()[0] if key == "code" else value
            if key == "code" and value.strip().count("\n"):
                text += " …"
            return text if len(text) <= limit else text[: limit - 1] + "…"
    if not data:
        return ""
    text = json.dumps(data, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"
