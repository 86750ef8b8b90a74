"""Answers to the agent's questions and plans, as the permission results the tools expect.

AskUserQuestion and ExitPlanMode ask through the permission callback (see
``nb_agent.tools.interaction``): an answer is an *allow* whose ``updated_input`` carries
the answers (or the chosen mode), a refusal is a *deny* whose message the model reads.
Every frontend (widgets, ``--answer``, a run nobody can answer) builds its results here,
so the model reads the same words whoever answered.
"""

from __future__ import annotations

from typing import Any, Literal

from nb_agent.permissions.types import PermissionAllow, PermissionDeny, PermissionRequest, PermissionResult

QUESTION_TOOL = "AskUserQuestion"
PLAN_TOOL = "ExitPlanMode"
PromptKind = Literal["question", "plan"]
PlanDecision = Literal["default", "acceptEdits", "keep"]

DECLINED_MESSAGE = "The user declined to answer your questions. Do not ask them again; continue with your best judgement and say which assumption you made."
KEEP_PLANNING = "The user doesn't want to proceed with this plan yet. Stay in plan mode and keep planning."
NOBODY_CAN_ANSWER = {
    "question": (
        "Nobody can answer questions in this run: it has no live view (a headless or static run) and the cell gave "
        "no --answer for it. Do not ask again; make a reasonable assumption, say which, and continue."
    ),
    "plan": (
        "Nobody can approve the plan in this run: it has no live view (a headless or static run) and the cell gave "
        "no --answer plan:… for it. Stay in plan mode: present the plan as your answer and stop."
    ),
}


def prompt_kind(tool_name: str) -> PromptKind | None:
    """Which kind of user prompt a tool's permission request is (``None``: an ordinary ask)."""
    return {QUESTION_TOOL: "question", PLAN_TOOL: "plan"}.get(tool_name)  # type: ignore[return-value]


def questions_of(request: PermissionRequest) -> list[dict[str, Any]]:
    questions = request.input.get("questions")
    return [q for q in questions if isinstance(q, dict)] if isinstance(questions, list) else []


def question_answered(request: PermissionRequest, answers: dict[str, str]) -> PermissionAllow:
    return PermissionAllow(updated_input={**request.input, "answers": dict(answers)})


def question_declined(feedback: str = "") -> PermissionDeny:
    feedback = feedback.strip()
    return PermissionDeny(message=DECLINED_MESSAGE + (f" The user said: {feedback}" if feedback else ""))


def plan_decided(request: PermissionRequest, decision: PlanDecision, feedback: str = "") -> PermissionResult:
    if decision == "keep":
        feedback = feedback.strip()
        return PermissionDeny(message=KEEP_PLANNING + (f" The user said:\n{feedback}" if feedback else ""))
    return PermissionAllow(updated_input={**request.input, "mode": decision})


def nobody_can_answer(kind: PromptKind) -> PermissionDeny:
    return PermissionDeny(message=NOBODY_CAN_ANSWER[kind])


def match_labels(question: dict[str, Any], picked: list[str]) -> list[str] | None:
    """The option labels ``picked`` names (case-insensitive, spaces trimmed), in the
    question's spelling; ``None`` if one of them is not an option."""
    by_key = {str(o.get("label", "")).strip().lower(): str(o.get("label", "")) for o in question.get("options") or []}
    labels = [by_key.get(p.strip().lower()) for p in picked]
    return None if any(label is None for label in labels) else [label for label in labels if label is not None]


def answer_text(labels: list[str], other: str = "") -> str:
    """How one question's answer reads for the model: the labels, then the user's own text."""
    parts = [*labels, *([other.strip()] if other.strip() else [])]
    return ", ".join(parts)
