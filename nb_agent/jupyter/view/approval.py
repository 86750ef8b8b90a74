"""Approval: the Allow / Always allow / Deny row on a tool card, and the callback that
waits for it (a ``CanUseTool``).

A click may be handled on a thread other than the event loop's (JupyterLab sends comm
messages over a kernel subshell), so the click only records the answer once (under a
lock) and hands it to the loop with ``call_soon_threadsafe``; the loop updates the card
and resolves the future. Feedback is given by updating widgets, never by printing.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

from nb_agent.jupyter.html import el, merge, style
from nb_agent.jupyter.view import keyboard, theme
from nb_agent.jupyter.view.typed_text import TypedText
from nb_agent.permissions.types import PermissionAllow, PermissionDeny, PermissionRequest, PermissionResult

if TYPE_CHECKING:
    from nb_agent.jupyter.view.agent_view import WidgetAgentView

Answer = Literal["allow", "always_allow", "deny"]

REJECT_MESSAGE = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, "
    "the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed."
)
REJECT_WITH_FEEDBACK_PREFIX = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, "
    "the new_string was NOT written to the file). To tell you how to proceed, the user said:\n"
)
BUTTON_LABELS: dict[Answer, str] = {"allow": "Allow", "always_allow": "Always allow", "deny": "Deny"}
FEEDBACK_PLACEHOLDER = "Feedback for the model if you deny (optional)"


def deny_message(feedback: str) -> str:
    feedback = feedback.strip()
    return REJECT_WITH_FEEDBACK_PREFIX + feedback if feedback else REJECT_MESSAGE


def permission_result(answer: Answer, feedback: str, request: PermissionRequest) -> PermissionResult:
    if answer == "allow":
        return PermissionAllow()
    if answer == "always_allow":
        return PermissionAllow(rule_to_add=request.suggested_rule)
    return PermissionDeny(message=deny_message(feedback))


class ApprovalRow:
    """The three buttons, the rule Always allow would add, and a feedback text box (Enter in
    it, with something written, denies with that feedback)."""

    def __init__(
        self,
        *,
        suggested_rule: str | None,
        on_answer: Callable[[Answer, str], None],
        shared: dict[str, Any],
        loop: asyncio.AbstractEventLoop,
    ) -> None:
        import ipywidgets as w

        self._on_answer = on_answer
        self._loop = loop
        self._lock = threading.Lock()
        self._answered = False
        self._task: asyncio.Task[None] | None = None
        layout, button_style, html_style = shared["fit_layout"], shared["button_style"], shared["html_style"]
        self.buttons: dict[Answer, Any] = {
            "allow": w.Button(description="Allow", button_style="success", layout=layout, style=button_style, _dom_classes=(keyboard.PRIMARY,)),
            "always_allow": w.Button(
                description="Always allow",
                button_style="info",
                tooltip=f"Adds the session rule {suggested_rule}" if suggested_rule else "No rule fits this call",
                disabled=suggested_rule is None,
                layout=layout,
                style=button_style,
            ),
            "deny": w.Button(description="Deny", button_style="danger", layout=layout, style=button_style, _dom_classes=(keyboard.ESCAPE,)),
        }
        rule_text = ["adds ", el("code", suggested_rule)] if suggested_rule else "(no rule to add)"
        self.rule = w.HTML(value=el("span", rule_text, style=merge(theme.small(theme.MUTED), style(white_space="nowrap"))), layout=layout, style=html_style)
        self.feedback = TypedText(placeholder=FEEDBACK_PLACEHOLDER, shared=shared)
        for answer, button in self.buttons.items():
            button.on_click(self._click_handler(answer))
        self.feedback.on_submit(lambda: self._clicked("deny") if self.feedback.value.strip() else None)
        self.box = w.HBox(
            [self.buttons["allow"], self.buttons["always_allow"], self.rule, self.buttons["deny"], self.feedback.widget],
            layout=shared["row_layout"],
            _dom_classes=(keyboard.ASK,),
        )

    @property
    def widgets(self) -> list[Any]:
        return [*self.buttons.values(), self.rule, self.feedback.widget, self.box]

    WIDGETS = 6
    """Widgets the row is made of (its styles and layouts are shared)."""

    def _click_handler(self, answer: Answer) -> Callable[[Any], None]:
        return lambda _button: self._clicked(answer)

    def _clicked(self, answer: Answer) -> None:  # on any thread
        with self._lock:
            if self._answered:
                return
            self._answered = True
        self._loop.call_soon_threadsafe(self._start, answer)

    def _start(self, answer: Answer) -> None:  # on the loop's thread
        self._task = self._loop.create_task(self._deliver(answer))

    async def _deliver(self, answer: Answer) -> None:
        feedback = await self.feedback.settled() if answer == "deny" else ""
        self._on_answer(answer, feedback)

    @property
    def answered(self) -> bool:
        return self._answered

    def click(self, answer: Answer, feedback: str = "") -> None:
        """Answer programmatically (tests, keyboard shortcuts)."""
        if feedback:
            self.feedback.widget.value = feedback
        self.buttons[answer].click()

    def disable(self) -> int:
        """Disable every control; returns the comm messages sent."""
        with self._lock:
            self._answered = True
        sent = 0
        for widget in (*self.buttons.values(), self.feedback.widget):
            if not widget.disabled:
                widget.disabled = True
                sent += 1
        return sent


class WidgetApprover:
    """``CanUseTool`` that asks on the tool's card and waits for a click."""

    def __init__(self, view: WidgetAgentView) -> None:
        self.view = view

    async def __call__(self, tool: Any, request: PermissionRequest, ctx: Any) -> PermissionResult:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[tuple[Answer, str]] = loop.create_future()
        card = self.view.state.ask_for(request)

        def settle(answer: Answer, feedback: str) -> None:  # on the loop's thread (the row's delivery)
            if future.done():
                return
            self.view.approval_answered(card, answer, feedback)
            future.set_result((answer, feedback))

        self.view.show_approval(card, settle)
        try:
            answer, feedback = await future
        except asyncio.CancelledError:
            self.view.approval_cancelled(card)
            raise
        return permission_result(answer, feedback, request)
