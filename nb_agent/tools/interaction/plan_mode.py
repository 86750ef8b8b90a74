"""EnterPlanMode and ExitPlanMode (Claude Code's schemas).

The session's permission mode is changed through ``ctx.options[SET_MODE_OPTION]`` (the
engine puts its setter there) and, for the rest of the running submission, through a
context modifier (both tools are not concurrency-safe, so the modifier applies).

ExitPlanMode always asks: the frontend shows the plan with *Approve* (``updated_input``
carries ``mode``: ``default`` or ``acceptEdits``) and *Keep planning* (a deny whose
message carries the user's feedback). EnterPlanMode asks an ordinary permission.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from nb_agent.errors import ToolError
from nb_agent.permissions.types import PermissionAsk, PermissionDecision, PermissionMode
from nb_agent.tools.base import ProgressCallback, Tool, ToolResult, ToolUseContext, ValidationResult
from nb_agent.tools.services import SET_MODE_OPTION

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
    setter = ctx.options.get(SET_MODE_OPTION)
    if setter is None:
        raise ToolError("The permission mode cannot be changed in this session.")
    setter(mode)


class EnterPlanModeInput(BaseModel):
    model_config = ConfigDict(extra="forbid")


class EnterPlanModeTool(Tool[EnterPlanModeInput]):
    name = "EnterPlanMode"
    input_model = EnterPlanModeInput
    requires_user_interaction = True

    def prompt(self) -> str:
        return ENTER_PROMPT

    def is_read_only(self, input: EnterPlanModeInput) -> bool:
        return True

    async def check_permissions(self, input: EnterPlanModeInput, ctx: ToolUseContext) -> PermissionDecision:
        return PermissionAsk(message="The agent proposes to plan first (plan mode: read-only tools only).")

    async def call(self, input: EnterPlanModeInput, ctx: ToolUseContext, on_progress: ProgressCallback) -> ToolResult:
        if ctx.permission_mode == "plan":
            return ToolResult(data={"mode": "plan", "message": "Already in plan mode."})
        _switch_mode(ctx, "plan")
        return ToolResult(data={"mode": "plan", "message": ENTERED_TEXT}, context_modifier=lambda c: replace(c, permission_mode="plan"))

    def map_result_to_block(self, data: Any, tool_use_id: str) -> str:
        if isinstance(data, str):  # an error the pipeline already worded
            return data
        return data["message"]


class ExitPlanModeInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    plan: str = Field(min_length=1, description="The plan you came up with, that you want to run by the user for approval. Supports markdown.")
    mode: Literal["default", "acceptEdits"] | None = Field(default=None, description="Set by the approval, not by the model")


class ExitPlanModeTool(Tool[ExitPlanModeInput]):
    name = "ExitPlanMode"
    input_model = ExitPlanModeInput
    requires_user_interaction = True

    def prompt(self) -> str:
        return EXIT_PROMPT

    def input_json_schema(self) -> dict[str, Any]:
        schema = super().input_json_schema()
        schema.get("properties", {}).pop("mode", None)  # the user's choice, never the model's
        return schema

    def is_read_only(self, input: ExitPlanModeInput) -> bool:
        return True

    async def validate_input(self, input: ExitPlanModeInput, ctx: ToolUseContext) -> ValidationResult:
        if input.mode is not None:  # only the user's approval sets it
            return ValidationResult.failed("ExitPlanMode takes only `plan`; the user chooses the mode when approving.")
        return ValidationResult.passed()

    async def check_permissions(self, input: ExitPlanModeInput, ctx: ToolUseContext) -> PermissionDecision:
        return PermissionAsk(message="Approve the agent's plan?")

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

    def map_result_to_block(self, data: Any, tool_use_id: str) -> str:
        if isinstance(data, str):  # an error the pipeline already worded
            return data
        return data["message"]
