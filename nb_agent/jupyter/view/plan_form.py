"""The agent's plan on its card: the plan (Markdown) with *Approve* (into the default
mode), *Approve, accept edits* (into ``acceptEdits``) and *Keep planning* with a box for
what to change (Enter in it, with something written, keeps planning). Clicks are handled as
on the approval row: once, under a lock, the answer read on the loop once the text settled."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from nb_agent.jupyter.html import el, markdown
from nb_agent.jupyter.prompt_answers import PlanDecision
from nb_agent.jupyter.view import keyboard, theme
from nb_agent.jupyter.view.answer_once import AnswerOnce, disable_all
from nb_agent.jupyter.view.typed_text import TypedText

KEYS: dict[PlanDecision, tuple[str, ...]] = {"default": (keyboard.PRIMARY,), "keep": (keyboard.ESCAPE,)}
BUTTONS: dict[PlanDecision, tuple[str, str]] = {
    "default": ("Approve", "success"),
    "acceptEdits": ("Approve, accept edits", "info"),
    "keep": ("Keep planning", "warning"),
}
FEEDBACK_PLACEHOLDER = "What to change (sent with Keep planning)"


class PlanForm:
    def __init__(self, *, plan: str, on_answer: Callable[[PlanDecision, str], None], shared: dict[str, Any], loop: asyncio.AbstractEventLoop) -> None:
        import ipywidgets as w

        self._on_answer = on_answer
        self._loop = loop
        self._task: asyncio.Task[None] | None = None
        self._once = AnswerOnce()
        self.plan = w.HTML(
            value=el("div", markdown(plan), style=theme.BOXED),
            layout=shared["layout"], style=shared["html_style"],
        )  # fmt: skip
        self.buttons: dict[PlanDecision, Any] = {
            decision: w.Button(
                description=label, button_style=style, layout=shared["fit_layout"], style=shared["button_style"],
                _dom_classes=KEYS.get(decision, ()),
            )  # fmt: skip
            for decision, (label, style) in BUTTONS.items()
        }
        self.feedback = TypedText(placeholder=FEEDBACK_PLACEHOLDER, shared=shared)
        for decision, button in self.buttons.items():
            button.on_click(self._click_handler(decision))
        self.feedback.on_submit(lambda: self._clicked("keep") if self.feedback.value.strip() else None)
        self.row = w.HBox([*self.buttons.values(), self.feedback.widget], layout=shared["row_layout"])
        self.box = w.VBox([self.plan, self.row], layout=shared["layout"], _dom_classes=(keyboard.ASK,))

    @property
    def widgets(self) -> list[Any]:
        return [self.plan, *self.buttons.values(), self.feedback.widget, self.row, self.box]

    @property
    def answered(self) -> bool:
        return self._once.answered

    def _click_handler(self, decision: PlanDecision) -> Callable[[Any], None]:
        return lambda _button: self._clicked(decision)

    def _clicked(self, decision: PlanDecision) -> None:  # on any thread
        if self._once.claim():
            self._loop.call_soon_threadsafe(self._start, decision)

    def _start(self, decision: PlanDecision) -> None:  # on the loop's thread
        self._task = self._loop.create_task(self._deliver(decision))

    async def _deliver(self, decision: PlanDecision) -> None:
        self._on_answer(decision, await self.feedback.settled() if decision == "keep" else "")

    def disable(self) -> int:
        return disable_all(self._once, (*self.buttons.values(), self.feedback.widget))
