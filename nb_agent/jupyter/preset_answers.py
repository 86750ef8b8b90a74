"""Pre-answered approvals: ``%%agent --answer allow --answer deny:"use pandas"``.

A run that nobody can click in (nbclient, nbval, ``python -m nb_agent.jupyter.demo``) cannot
wait for the approval buttons. A cell that gives ``--answer`` values has its permission
requests answered from that list, in the order they are asked, instead of showing
buttons. Each request still appears on its tool card, marked as pre-answered, so the
final rendering shows that the tool asked and what the answer was. A request beyond the
list is denied (never left waiting) and says so. The model receives exactly what a click
would have produced (the same allow, session rule or rejection message).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from typing import Any

from nb_agent.jupyter.options import PresetAnswer
from nb_agent.jupyter.static_render import PRESET_USED_UP
from nb_agent.jupyter.view.approval import permission_result
from nb_agent.jupyter.view.run_state import RunState
from nb_agent.permissions.types import PermissionDeny, PermissionRequest, PermissionResult

USED_UP_FEEDBACK = PRESET_USED_UP
USED_UP_MESSAGE = (
    "The permission request was denied without asking anyone: this run answers permission requests "
    "from a fixed list (%%agent --answer), and the list was used up. Do not retry this tool call; "
    "say what you wanted to do and stop."
)


class PresetApprover:
    """``CanUseTool`` that answers from a list and records each answer on the run's cards."""

    def __init__(self, answers: Iterable[PresetAnswer], state: RunState) -> None:
        self._answers: deque[PresetAnswer] = deque(answers)
        self.state = state
        self.asked = 0

    @property
    def unused(self) -> int:
        return len(self._answers)

    async def __call__(self, tool: Any, request: PermissionRequest, ctx: Any) -> PermissionResult:
        self.asked += 1
        card = self.state.ask_for(request)
        if not self._answers:
            self.state.answer(card, "deny", USED_UP_FEEDBACK, source="preset")
            return PermissionDeny(message=USED_UP_MESSAGE)
        preset = self._answers.popleft()
        answer = preset.answer
        if answer == "always_allow" and not request.suggested_rule:
            answer = "allow"  # no rule fits this call: Always allow would be disabled too
        self.state.answer(card, answer, preset.feedback, source="preset")  # type: ignore[arg-type]
        return permission_result(answer, preset.feedback, request)  # type: ignore[arg-type]

    def report_unused(self) -> None:
        """A notice on the run when answers were left over (the notebook expected more asks)."""
        if self._answers:
            left = ", ".join(a.describe() for a in self._answers)
            self.state.notice("warning", f"{len(self._answers)} --answer value(s) were not needed: {left}", subtype="preset_answers")
