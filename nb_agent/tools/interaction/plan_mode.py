"""EnterPlanMode and ExitPlanMode (Claude Code's schemas).

The session's permission mode is changed through ``ctx.services.set_permission_mode``
(the engine puts its setter there) and, for the rest of the running submission, through a
context modifier (both tools are not concurrency-safe, so the modifier applies).

ExitPlanMode always asks: the frontend shows the plan with *Approve* (``updated_input``
carries ``mode``: ``default`` or ``acceptEdits``) and *Keep planning* (a deny whose
message carries the user's feedback). EnterPlanMode asks an ordinary permission.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from nb_agent.errors import ToolError
from nb_agent.permissions.types import PermissionMode
from nb_agent.tools.base import ProgressCallback, ToolResult, ToolUseContext
from nb_agent.tools.interaction.base import UserPromptTool

APPROVED_MODES: tuple[str, ...] = ("default", "acceptEdits")

ENTER_PROMPT = """\
Use this tool to propose planning before acting, when a task is large, ambiguous or risky: it asks the user to switch the session to plan mode. In plan mode only read-only tools run; explore, then present a plan with ExitPlanMode for the user to approve. Do not use it for simple tasks."""

EXIT_PROMPT = """\
Use this tool when you are in plan mode and have finished planning: it presents your plan to the user for approval. The plan is Markdown; keep it concise and concrete (steps, files, checks).
Only use it for tasks that need implementation steps, not for research-only tasks. Do not use AskUserQuestion to ask whether the plan is fine: this tool does that."""

ENTERED_TEXT = (
    "Entered plan mode. You should now focus on exploring and designing an approach: read-only tools only, "
    "no changes. When the plan is ready, present it with ExitPlanMode for the user to approve."
)


def _switch_mode(ctx: ToolUseContext, mode: PermissionMode) -> None:
    setter = ctx.services.set_permission_mode
    if setter is None:
        raise ToolError("The permission mode cannot be changed in this session.")
    setter(mode)


class EnterPlanModeInput(BaseModel):
    model_config = ConfigDict(extra="forbid")


class EnterPlanModeTool(UserPromptTool):
    name = "EnterPlanMode"
    input_model = EnterPlanModeInput
    ask_message = "The agent proposes to plan first (plan mode: read-only tools only)."

    def prompt(self) -> str:
        return ENTER_PROMPT

    async def call(self, input: EnterPlanModeInput, ctx: ToolUseContext, on_progress: ProgressCallback) -> ToolResult:
        if ctx.permission_mode == "plan":
            return ToolResult(data={"mode": "plan", "message": "Already in plan mode."})
        _switch_mode(ctx, "plan")
        return ToolResult(data={"mode": "plan", "message": ENTERED_TEXT}, context_modifier=lambda c: replace(c, permission_mode="plan"))


class ExitPlanModeInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    plan: str = Field(min_length=1, description="The plan you came up with, that you want to run by the user for approval. Supports markdown.")
    mode: Literal["default", "acceptEdits"] | None = Field(default=None, description="Set by the approval, not by the model")


class ExitPlanModeTool(UserPromptTool):
    name = "ExitPlanMode"
    input_model = ExitPlanModeInput
    ask_message = "Approve the agent's plan?"
    answer_fields = ("mode",)

    def prompt(self) -> str:
        return EXIT_PROMPT

    async def call(self, input: ExitPlanModeInput, ctx: ToolUseContext, on_progress: ProgressCallback) -> ToolResult:
        # A plain "allow" (an approver that knows nothing of plans) approves into the default mode.
        mode: PermissionMode = input.mode or "default"
        _switch_mode(ctx, mode)
        text = (
            f"User has approved your plan. The session is now in {mode} mode. You can now start coding. "
            "Start with updating your todo list if applicable\n\n## Approved Plan:\n" + input.plan
        )
        return ToolResult(
            data={"plan": input.plan, "mode": mode, "message": text},
            context_modifier=lambda c: replace(c, permission_mode=mode),
        )
