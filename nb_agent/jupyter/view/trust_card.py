"""The folder-trust question on the live view: **Trust this folder** / **Don't trust**.

Asked once per folder, before the first run whose folder holds files that would change
what the agent does (:mod:`nb_agent.folder_trust`). The question is a notice of the run
with two buttons under it; the answer replaces the question's text, so the static
rendering the notebook keeps says what was decided. As with approvals, a click may
arrive on another thread: it is recorded once, under a lock, and handed to the loop.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from nb_agent.jupyter.view import keyboard

if TYPE_CHECKING:
    from nb_agent.folder_trust import FolderTrust
    from nb_agent.jupyter.view.agent_view import WidgetAgentView

TRUST_LABEL = "Trust this folder"
DONT_TRUST_LABEL = "Don't trust"


def question_text(trust: FolderTrust) -> str:
    """A heading line, what the folder holds (one line each) and what each answer does."""
    return "\n".join(
        [
            f"Do you trust the files in {trust.folder}?",
            "They would change what the agent does:",
            *(f"  • {reason}" for reason in trust.reasons),
            f"{TRUST_LABEL}: they are used, in this run and later ones. Only if you know where they come from.",
            f"{DONT_TRUST_LABEL}: none of them is used (the folder's deny and ask rules still are) and no git runs.",
        ]
    )


def answered_text(trust: FolderTrust, trusted: bool, *, by: str) -> str:
    if trusted:
        return f"Trusted {trust.folder} ({by}): its {'; '.join(trust.reasons)} apply. %agent untrust takes it back."
    return (
        f"Not trusted: {trust.folder} ({by}). Running without its {'; '.join(trust.reasons)} "
        "(its deny and ask rules still apply). %agent trust changes this."
    )


class TrustRow:
    """The two buttons (once answered, both disabled)."""

    WIDGETS = 3

    def __init__(self, *, on_answer: Callable[[bool], object], shared: dict[str, Any]) -> None:
        import ipywidgets as w

        self._on_answer = on_answer
        self._lock = threading.Lock()
        self._answered = False
        self.buttons = {
            True: w.Button(description=TRUST_LABEL, button_style="warning", layout=shared["fit_layout"], style=shared["button_style"]),
            False: w.Button(description=DONT_TRUST_LABEL, layout=shared["fit_layout"], style=shared["button_style"], _dom_classes=(keyboard.ESCAPE,)),
        }
        for answer, button in self.buttons.items():
            button.on_click(lambda _button, answer=answer: self._clicked(answer))
        self.box = w.HBox(list(self.buttons.values()), layout=shared["row_layout"], _dom_classes=(keyboard.ASK,))

    @property
    def widgets(self) -> list[Any]:
        return [*self.buttons.values(), self.box]

    def _clicked(self, answer: bool) -> None:
        with self._lock:
            if self._answered:
                return
            self._answered = True
        self._on_answer(answer)

    def disable(self) -> int:
        """Disable both buttons; returns the comm messages sent."""
        with self._lock:
            self._answered = True
        sent = 0
        for button in self.buttons.values():
            if not button.disabled:
                button.disabled = True
                sent += 1
        return sent


async def ask_trust(view: WidgetAgentView, trust: FolderTrust) -> bool:
    """Show the question on ``view`` and wait for a click: True to trust."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[bool] = loop.create_future()
    notice = view.state.notice("warning", question_text(trust), subtype="folder_trust")

    def settle(answer: bool) -> None:  # on the loop's thread
        if not future.done():
            future.set_result(answer)

    row = view.show_trust_question(notice, lambda answer: loop.call_soon_threadsafe(settle, answer))
    try:
        answer = await future
    finally:
        view.scheduler.budget.spend(row.disable())
    notice.level = "info"
    notice.text = answered_text(trust, answer, by="answered by you")
    view.state.changed(notice)
    view.flush_now()
    return answer
