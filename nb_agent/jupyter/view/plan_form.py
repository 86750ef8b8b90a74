"""The agent's plan on its card: the plan (Markdown) with *Approve* (into the default
mode), *Approve, accept edits* (into ``acceptEdits``) and *Keep planning* with a box for
what to change. Clicks are handled as on the approval row (once, under a lock)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from nb_agent.jupyter.html import el, markdown
from nb_agent.jupyter.prompt_answers import PlanDecision
from nb_agent.jupyter.view import theme
from nb_agent.jupyter.view.answer_once import AnswerOnce, disable_all

BUTTONS: dict[PlanDecision, tuple[str, str]] = {
    "default": ("Approve", "success"),
    "acceptEdits": ("Approve, accept edits", "info"),
    "keep": ("Keep planning", "warning"),
}
FEEDBACK_PLACEHOLDER = "What to change (sent with Keep planning)"


class PlanForm:
    def __init__(self, *, plan: str, on_answer: Callable[[PlanDecision, str], None], shared: dict[str, Any]) -> None:
        import ipywidgets as w

        self._on_answer = on_answer
        self._once = AnswerOnce()
        self.plan = w.HTML(
            value=el("div", markdown(plan), style=theme.BOXED),
            layout=shared["layout"], style=shared["html_style"],
        )  # fmt: skip
        self.buttons: dict[PlanDecision, Any] = {
            decision: w.Button(description=label, button_style=style, layout=shared["layout"], style=shared["button_style"])
            for decision, (label, style) in BUTTONS.items()
        }
        self.feedback = w.Text(placeholder=FEEDBACK_PLACEHOLDER, layout=shared["layout"], style=shared["text_style"], continuous_update=True)
        for decision, button in self.buttons.items():
            button.on_click(lambda _b, decision=decision: self._clicked(decision))
        self.row = w.HBox([*self.buttons.values(), self.feedback], layout=shared["row_layout"])
        self.box = w.VBox([self.plan, self.row], layout=shared["layout"])

    @property
    def widgets(self) -> list[Any]:
        return [self.plan, *self.buttons.values(), self.feedback, self.row, self.box]

    @property
    def answered(self) -> bool:
        return self._once.answered

    def _clicked(self, decision: PlanDecision) -> None:
        if self._once.claim():
            self._on_answer(decision, (self.feedback.value or "") if decision == "keep" else "")

    def disable(self) -> int:
        return disable_all(self._once, (*self.buttons.values(), self.feedback))
