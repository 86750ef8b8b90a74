"""Asking the user the agent's questions and plans on the live view (a ``CanUseTool`` for
AskUserQuestion and ExitPlanMode): the form goes on the tool's card, the run waits for the
answer like an approval, and Stop ends the wait (the pipeline answers the tool_use)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from nb_agent.jupyter.prompt_answers import (
    PlanDecision,
    plan_decided,
    prompt_kind,
    question_answered,
    question_declined,
    questions_of,
)
from nb_agent.jupyter.view.plan_form import PlanForm
from nb_agent.jupyter.view.question_form import QuestionForm
from nb_agent.permissions.types import PermissionDeny, PermissionRequest, PermissionResult

if TYPE_CHECKING:
    from nb_agent.jupyter.view.agent_view import WidgetAgentView


class WidgetUserPrompts:
    def __init__(self, view: WidgetAgentView) -> None:
        self.view = view

    async def __call__(self, tool: Any, request: PermissionRequest, ctx: Any) -> PermissionResult:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[PermissionResult] = loop.create_future()
        view = self.view
        card = view.state.ask_for(request)

        def settle(result: PermissionResult, feedback: str) -> None:  # on the loop's thread
            if future.done():
                return
            view.approval_answered(card, "deny" if isinstance(result, PermissionDeny) else "allow", feedback)
            future.set_result(result)

        def answered(answers: dict[str, str] | None, feedback: str) -> None:  # on the loop's thread (the form's delivery)
            settle(question_answered(request, answers) if answers is not None else question_declined(feedback), feedback)

        def decided(decision: PlanDecision, feedback: str) -> None:  # on the loop's thread (the form's delivery)
            settle(plan_decided(request, decision, feedback), feedback)

        shared = view.shared_widgets
        if prompt_kind(request.tool_name) == "plan":
            panel: Any = PlanForm(plan=str(request.input.get("plan", "")), on_answer=decided, shared=shared, loop=loop)
        else:
            panel = QuestionForm(questions=questions_of(request), on_answer=answered, shared=shared, loop=loop)
        view.show_panel(card, panel)
        try:
            return await future
        except asyncio.CancelledError:
            view.approval_cancelled(card)
            raise
