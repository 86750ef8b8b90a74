"""What the tools that put something to the user share: they need the user's UI, always
ask (no mode or rule answers for the user), change no file (so plan mode allows them),
and the frontend's answer arrives in ``updated_input`` under fields the model must not
fill in itself."""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel

from nb_agent.permissions.types import PermissionAsk, PermissionDecision, PermissionDeny
from nb_agent.tools.base import Tool, ToolUseContext


class UserPromptTool(Tool[Any]):
    requires_user_interaction = True
    ask_message: ClassVar[str] = "The agent asks you"
    answer_fields: ClassVar[tuple[str, ...]] = ()
    """Input fields only the user's answer sets: hidden from the model's schema, refused from it."""

    def input_json_schema(self) -> dict[str, Any]:
        schema = super().input_json_schema()
        for name in self.answer_fields:
            schema.get("properties", {}).pop(name, None)
        return schema

    def is_read_only(self, input: BaseModel) -> bool:
        return True

    async def check_permissions(self, input: BaseModel, ctx: ToolUseContext) -> PermissionDecision:
        # Checked here, on the model's own input, not in validate_input: the pipeline
        # re-validates the permission answer's input, which carries these fields.
        forged = [name for name in self.answer_fields if getattr(input, name, None) is not None]
        if forged:
            return PermissionDeny(message=f"{self.name}: {', '.join(forged)} is set by the user's answer, not by you; leave it out.")
        return PermissionAsk(message=self.ask_message)

    def map_result_to_block(self, data: Any, tool_use_id: str) -> str:
        if isinstance(data, str):  # an error the pipeline already worded
            return data
        return str(data["message"])
