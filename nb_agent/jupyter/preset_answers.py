"""Pre-answered requests: ``%%agent --answer allow --answer pick:Median --answer plan:acceptEdits``.

A run that nobody can click in (nbclient, nbval, ``python -m nb_agent.jupyter.demo``) cannot
wait for buttons. A cell that gives ``--answer`` values has its requests answered from
that list instead: permission requests by ``allow`` / ``always`` / ``deny``, the agent's
questions by ``pick:`` / ``other:`` (one value per question), its plans by ``plan:``; each
kind in its own order. Each request still appears on its tool card, marked as
pre-answered, so the final rendering shows what was asked and what the answer was. A
request beyond the list is refused (never left waiting) and says so. The model receives
exactly what a click would have produced.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from typing import Any

from nb_agent.jupyter.options import PresetAnswer
from nb_agent.jupyter.prompt_answers import (
    answer_text,
    match_labels,
    nobody_can_answer,
    plan_decided,
    prompt_kind,
    question_answered,
    question_declined,
    questions_of,
)
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
        self._queues: dict[str, deque[PresetAnswer]] = {"permission": deque(), "question": deque(), "plan": deque()}
        for answer in answers:
            self._queues[answer.kind].append(answer)
        self.state = state
        self.asked = 0

    @property
    def unused(self) -> int:
        return sum(len(q) for q in self._queues.values())

    async def __call__(self, tool: Any, request: PermissionRequest, ctx: Any) -> PermissionResult:
        self.asked += 1
        card = self.state.ask_for(request)
        kind = prompt_kind(request.tool_name)
        if kind == "question":
            result, said = self._question(request)
        elif kind == "plan":
            result, said = self._plan(request)
        else:
            return self._permission(card, request)
        self.state.answer(card, "allow" if not isinstance(result, PermissionDeny) else "deny", said, source="preset")
        return result

    def _permission(self, card: Any, request: PermissionRequest) -> PermissionResult:
        queue = self._queues["permission"]
        if not queue:
            self.state.answer(card, "deny", USED_UP_FEEDBACK, source="preset")
            return PermissionDeny(message=USED_UP_MESSAGE)
        preset = queue.popleft()
        answer = preset.answer
        if answer == "always_allow" and not request.suggested_rule:
            answer = "allow"  # no rule fits this call: Always allow would be disabled too
        self.state.answer(card, answer, preset.feedback, source="preset")  # type: ignore[arg-type]
        return permission_result(answer, preset.feedback, request)  # type: ignore[arg-type]

    def _question(self, request: PermissionRequest) -> tuple[PermissionResult, str]:
        queue = self._queues["question"]
        questions = questions_of(request)
        if len(queue) < len(questions):
            queue.clear()
            return nobody_can_answer("question"), USED_UP_FEEDBACK
        answers: dict[str, str] = {}
        for question in questions:
            preset = queue.popleft()
            if preset.answer == "other":
                answers[question["question"]] = answer_text([], preset.feedback)
                continue
            labels = match_labels(question, list(preset.labels))
            if labels is None:
                options = ", ".join(str(o.get("label")) for o in question.get("options") or [])
                self.state.notice("warning", f"--answer {preset.describe()} names no option of “{question['question']}” ({options})", subtype="preset_answers")
                return question_declined(), f"--answer {preset.describe()} matched no option"
            answers[question["question"]] = answer_text(labels)
        return question_answered(request, answers), "; ".join(answers.values())

    def _plan(self, request: PermissionRequest) -> tuple[PermissionResult, str]:
        queue = self._queues["plan"]
        if not queue:
            return nobody_can_answer("plan"), USED_UP_FEEDBACK
        preset = queue.popleft()
        return plan_decided(request, preset.mode, preset.feedback), preset.feedback  # type: ignore[arg-type]

    def report_unused(self) -> None:
        """A notice on the run when answers were left over (the notebook expected more asks)."""
        left = [a for q in self._queues.values() for a in q]
        if left:
            listed = ", ".join(a.describe() for a in left)
            self.state.notice("warning", f"{len(left)} --answer value(s) were not needed: {listed}", subtype="preset_answers")
