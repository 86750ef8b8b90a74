"""What the web tools share: an HTTP read that changes nothing here (read-only,
concurrency-safe, cancelled at once by Stop), yet reaches other hosts, so being read-only
does not allow it without consent; the model reads the text its data carries."""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel

from nb_agent.tools.base import InterruptBehavior, Tool


class WebReadTool(Tool[Any]):
    reaches_network = True
    result_field: ClassVar[str] = "result"

    def is_read_only(self, input: BaseModel) -> bool:
        return True

    def is_concurrency_safe(self, input: BaseModel) -> bool:
        return True

    def interrupt_behavior(self) -> InterruptBehavior:
        return "cancel"

    def map_result_to_block(self, data: Any, tool_use_id: str) -> str:
        if isinstance(data, str):  # an error the pipeline already worded
            return data
        return str(data[self.result_field])
