"""The agent's questions and plans in terminal IPython (no widgets): asked on stdin."""

from __future__ import annotations

import asyncio
from typing import Any

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
from nb_agent.jupyter.view.run_state import RunState
from nb_agent.permissions.types import PermissionDeny, PermissionRequest, PermissionResult

PLAN_REPLIES = {"a": "default", "e": "acceptEdits", "k": "keep"}


class TextUserPrompts:
    def __init__(self, state: RunState) -> None:
        self.state = state

    async def __call__(self, tool: Any, request: PermissionRequest, ctx: Any) -> PermissionResult:
        card = self.state.ask_for(request)
        kind = prompt_kind(request.tool_name)
        try:
            result = await (self._plan(request) if kind == "plan" else self._questions(request))
        except (EOFError, OSError):
            result = nobody_can_answer(kind or "question")
        feedback = result.message if isinstance(result, PermissionDeny) else ""
        self.state.answer(card, "deny" if isinstance(result, PermissionDeny) else "allow", feedback)
        return result

    async def _questions(self, request: PermissionRequest) -> PermissionResult:
        answers: dict[str, str] = {}
        for question in questions_of(request):
            options = question.get("options") or []
            listed = "\n".join(f"  {i}. {o.get('label')} — {o.get('description', '')}" for i, o in enumerate(options, 1))
            reply = await _input(f"{question.get('question')}\n{listed}\nNumber(s), comma-separated, or your own answer (empty to skip): ")
            if not reply.strip():
                return question_declined()
            picked = [p.strip() for p in reply.split(",")]
            if all(p.isdigit() and 1 <= int(p) <= len(options) for p in picked):
                labels = [str(options[int(p) - 1].get("label")) for p in picked]
            else:
                labels = match_labels(question, picked) or []
            answers[str(question.get("question"))] = answer_text(labels) if labels else answer_text([], reply)
        return question_answered(request, answers)

    async def _plan(self, request: PermissionRequest) -> PermissionResult:
        print(str(request.input.get("plan", "")))
        reply = (await _input("[a]pprove, approve and [e]dit without asking, [k]eep planning: ")).strip().lower()[:1]
        decision = PLAN_REPLIES.get(reply, "keep")
        feedback = (await _input("What should change? ")).strip() if decision == "keep" else ""
        return plan_decided(request, decision, feedback)  # type: ignore[arg-type]


async def _input(prompt: str) -> str:
    return await asyncio.get_running_loop().run_in_executor(None, input, prompt)
