"""Fixtures for the file tool tests: a session rooted in ``tmp_path`` and a pipeline runner."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from nb_agent.abort import AbortController
from nb_agent.errors import ToolError
from nb_agent.tools.base import Tool, ToolSession, ToolUseContext


@dataclass(kw_only=True)
class Outcome:
    """What the model would see: ``ok`` false for an is_error result, with ``text`` the message."""

    ok: bool
    content: Any
    data: Any = None

    @property
    def text(self) -> str:
        assert isinstance(self.content, str), self.content
        return self.content


RunTool = Callable[..., Awaitable[Outcome]]


@pytest.fixture
def ctx(tmp_path: Path) -> ToolUseContext:
    return ToolUseContext(abort_controller=AbortController(), session=ToolSession(cwd=tmp_path))


@pytest.fixture
def run(ctx: ToolUseContext) -> RunTool:
    """Run a tool as the pipeline does: parse, validate_input, call, map_result_to_block."""

    async def run_tool(tool: Tool[Any], *, context: ToolUseContext | None = None, **raw: Any) -> Outcome:
        use = context or ctx
        parsed = tool.parse_input(raw)
        check = await tool.validate_input(parsed, use)
        if not check.ok:
            return Outcome(ok=False, content=check.message)
        try:
            result = await tool.call(parsed, use, lambda _progress: None)
        except ToolError as exc:
            return Outcome(ok=False, content=str(exc))
        return Outcome(ok=True, content=tool.map_result_to_block(result.data, "toolu_test"), data=result.data)

    return run_tool
