"""The agent's questions on its card: option buttons (checkboxes for multi-select), an
"Other" text box per question (Enter in it submits), *Submit answers* and *Skip*.

As with the approval row, a click may arrive on a thread other than the event loop's:
selections are recorded under a lock, widget styles are updated on the loop, the "Other"
texts are read on the loop once settled, and the answer is delivered once.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from nb_agent.jupyter.html import el, style
from nb_agent.jupyter.prompt_answers import answer_text
from nb_agent.jupyter.view import keyboard, theme
from nb_agent.jupyter.view.answer_once import AnswerOnce, disable_all
from nb_agent.jupyter.view.typed_text import TypedText

OTHER_PLACEHOLDER = "Other: your own answer (optional)"
SUBMIT_LABEL = "Submit answers"
SKIP_LABEL = "Skip"
UNANSWERED_TEXT = "Answer every question (pick an option or write your own), or press Skip."

Deliver = Callable[[dict[str, str] | None, str], None]
"""``(answers, feedback)``: the answers by question text, or ``None`` and a note when skipped."""


class _QuestionWidgets:
    def __init__(self, w: Any, question: dict[str, Any], shared: dict[str, Any], on_pick: Callable[[int, int], None], index: int) -> None:
        self.question = question
        self.labels = [str(o.get("label", "")) for o in question.get("options") or []]
        self.multi = bool(question.get("multiSelect"))
        self.selected: set[int] = set()
        keys = [(keyboard.PRIMARY,) if index == 0 and option == 0 else () for option in range(len(self.labels))]
        described = [el("li", el("b", str(o.get("label", ""))), " — ", str(o.get("description", ""))) for o in question.get("options") or []]
        self.title = w.HTML(
            value=el(
                "div",
                el("div", el("span", str(question.get("header", "")), style=theme.CHIP), " ", el("b", str(question.get("question", ""))), " (choose any)" if self.multi else None),
                el("ul", described, style=style(margin="2px 0", font_size="0.85em")),
            ),
            layout=shared["layout"], style=shared["html_style"],
        )  # fmt: skip
        if self.multi:
            self.choices = [w.Checkbox(value=False, description=label, indent=False, layout=shared["layout"], _dom_classes=key) for label, key in zip(self.labels, keys)]
            for option, box in enumerate(self.choices):
                box.observe(lambda change, option=option: on_pick(index, option) if change["name"] == "value" else None, names="value")
        else:
            self.choices = [
                w.Button(
                    description=label, tooltip=str(o.get("description", "")), layout=shared["fit_layout"], style=shared["button_style"],
                    _dom_classes=key,
                )  # fmt: skip
                for label, o, key in zip(self.labels, question.get("options") or [], keys)
            ]
            for option, button in enumerate(self.choices):
                button.on_click(lambda _b, option=option: on_pick(index, option))
        self.other = TypedText(placeholder=OTHER_PLACEHOLDER, shared=shared)
        self.row = w.HBox([*self.choices, self.other.widget], layout=shared["row_layout"])

    @property
    def widgets(self) -> list[Any]:
        return [self.title, *self.choices, self.other.widget, self.row]

    def toggle(self, option: int) -> None:
        if self.multi:
            if self.choices[option].value:
                self.selected.add(option)
            else:
                self.selected.discard(option)
        elif option in self.selected:
            self.selected.clear()
        else:
            self.selected = {option}

    def answer(self, other: str) -> str:
        return answer_text([self.labels[i] for i in sorted(self.selected)], other)


class QuestionForm:
    """Every question of one AskUserQuestion call, and the buttons that answer them."""

    def __init__(self, *, questions: list[dict[str, Any]], on_answer: Deliver, shared: dict[str, Any], loop: asyncio.AbstractEventLoop) -> None:
        import ipywidgets as w

        self._on_answer = on_answer
        self._loop = loop
        self._tasks: set[asyncio.Task[None]] = set()
        self._once = AnswerOnce()
        self.questions = [_QuestionWidgets(w, q, shared, self._picked, i) for i, q in enumerate(questions)]
        self.submit = w.Button(description=SUBMIT_LABEL, button_style="success", layout=shared["fit_layout"], style=shared["button_style"])
        self.skip = w.Button(description=SKIP_LABEL, layout=shared["fit_layout"], style=shared["button_style"], _dom_classes=(keyboard.ESCAPE,))
        self.message = w.HTML(value="", layout=shared["layout"], style=shared["html_style"])
        self.submit.on_click(lambda _b: self._soon(self._submitted))
        self.skip.on_click(lambda _b: self._soon(self._skipped))
        for question in self.questions:
            question.other.on_submit(lambda: self._soon(self._submitted))
        buttons = w.HBox([self.submit, self.skip, self.message], layout=shared["row_layout"])
        parts: list[Any] = []
        for q in self.questions:
            parts += [q.title, q.row]
        self._buttons = buttons
        self.box = w.VBox([*parts, buttons], layout=shared["layout"], _dom_classes=(keyboard.ASK,))

    @property
    def widgets(self) -> list[Any]:
        inner = [x for q in self.questions for x in q.widgets]
        return [*inner, self.submit, self.skip, self.message, self._buttons, self.box]

    @property
    def answered(self) -> bool:
        return self._once.answered

    def _soon(self, step: Callable[[], Any]) -> None:  # on any thread: the step runs as a task on the loop
        def start() -> None:
            task = self._loop.create_task(step())
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

        self._loop.call_soon_threadsafe(start)

    def _picked(self, index: int, option: int) -> None:
        with self._once.lock:
            if self._once.answered:
                return
            question = self.questions[index]
            question.toggle(option)
            chosen = set(question.selected)
        if not question.multi:
            self._loop.call_soon_threadsafe(self._show_selection, question, chosen)

    @staticmethod
    def _show_selection(question: _QuestionWidgets, chosen: set[int]) -> None:
        for i, button in enumerate(question.choices):
            style = "info" if i in chosen else ""
            if button.button_style != style:
                button.button_style = style

    async def _submitted(self) -> None:
        others = [await q.other.settled() for q in self.questions]
        with self._once.lock:
            if self._once.answered:
                return
            answers = {str(q.question.get("question", "")): q.answer(other) for q, other in zip(self.questions, others)}
            if not all(answers.values()):
                self.message.value = el("span", UNANSWERED_TEXT, style=theme.TEXT[theme.ERROR])
                return
            self._once.answered = True
        self._on_answer(answers, "")

    async def _skipped(self) -> None:
        if not self._once.claim():
            return
        others = [await q.other.settled() for q in self.questions]
        self._on_answer(None, "; ".join(other.strip() for other in others if other.strip()))

    def disable(self) -> int:
        return disable_all(self._once, (*[c for q in self.questions for c in (*q.choices, q.other.widget)], self.submit, self.skip))
