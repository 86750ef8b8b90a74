"""Tool failures become error tool_results the model can read; nothing escapes."""

from __future__ import annotations

from pydantic import BaseModel

from nb_agent.errors import ToolError
from nb_agent.loop.pipeline import ToolRunDeps, run_tool_use
from nb_agent.messages import UserMessage
from nb_agent.testing import tool_use
from nb_agent.testing.harness import tool_context
from nb_agent.testing.tools import FunctionTool, RecordingTool
from nb_agent.tools.base import ToolResult


async def _updates(tools, block):
    return [u async for u in run_tool_use(block, tool_context(tools), ToolRunDeps())]


def _only_result(updates):
    results = [u for u in updates if u.message.type == "user" and u.message.source_tool_use_id]
    assert len(results) == 1
    return results[0]


async def test_tool_error_is_an_error_result():
    result = _only_result(await _updates([RecordingTool("Echo")], tool_use("Echo", {"value": "v", "fail": True})))
    assert result.is_error
    assert result.message.content[0] == {
        "type": "tool_result",
        "tool_use_id": result.message.source_tool_use_id,
        "content": "<tool_use_error>Echo failed on 'v'</tool_use_error>",
        "is_error": True,
    }


async def test_a_crashing_tool_is_an_error_result():
    result = _only_result(await _updates([RecordingTool("Echo")], tool_use("Echo", {"crash": True})))
    assert result.is_error
    assert result.message.content[0]["content"] == "<tool_use_error>Error: RuntimeError: Echo crashed</tool_use_error>"


class _Empty(BaseModel):
    pass


async def test_progress_then_result_then_new_messages():
    async def fn(input, ctx):
        return ToolResult(data={"rows": 3}, new_messages=[UserMessage(content="follow-up", is_meta=True)])

    updates = await _updates([FunctionTool("Query", fn, _Empty)], tool_use("Query", {}))
    assert [u.message.type for u in updates] == ["user", "user"]
    assert updates[0].message.content[0]["content"] == '{"rows": 3}'
    assert updates[0].message.tool_use_result == {"rows": 3}
    assert updates[1].message.content == "follow-up"


async def test_tool_error_subclass_raised_from_a_function_tool():
    async def fn(input, ctx):
        raise ToolError("file not found: x.csv")

    result = _only_result(await _updates([FunctionTool("Load", fn, _Empty)], tool_use("Load", {})))
    assert result.message.content[0]["content"] == "<tool_use_error>file not found: x.csv</tool_use_error>"
