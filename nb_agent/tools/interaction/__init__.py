"""Tools that talk with the user: TodoWrite, AskUserQuestion, EnterPlanMode, ExitPlanMode."""

from __future__ import annotations

from typing import Any

from nb_agent.tools.base import Tool
from nb_agent.tools.interaction.plan_mode import EnterPlanModeTool, ExitPlanModeTool
from nb_agent.tools.interaction.questions import AskUserQuestionTool
from nb_agent.tools.interaction.todos import TodoWriteTool


def interaction_tools() -> list[Tool[Any]]:
    """One instance of each."""
    return [TodoWriteTool(), AskUserQuestionTool(), EnterPlanModeTool(), ExitPlanModeTool()]


__all__ = ["AskUserQuestionTool", "EnterPlanModeTool", "ExitPlanModeTool", "TodoWriteTool", "interaction_tools"]
