"""A real MCP server over stdio: connect, list, call, annotations, results, list_changed."""

from __future__ import annotations

import asyncio
import base64
import json

import pytest

from nb_agent.errors import InputValidationError, ToolError
from nb_agent.mcp import McpManager, McpToolOutput
from nb_agent.testing.mcp_server import DEFAULT_INSTRUCTIONS
from nb_agent.testing.waiting import eventually


def by_name(manager: McpManager):
    return {t.name: t for t in manager.tools()}


async def test_connect_lists_tools_with_status_and_instructions(manager: McpManager) -> None:
    [row] = manager.list_servers()
    assert (row.name, row.status, row.transport, row.error) == ("test", "connected", "stdio", None)
    names = set(by_name(manager))
    assert {"mcp__test__echo", "mcp__test__delete_item", "mcp__test__write_note", "mcp__test__slow"} <= names
    assert row.tool_count == len(names)
    assert manager.instructions() == {"test": DEFAULT_INSTRUCTIONS}


async def test_call_returns_text(manager: McpManager, call_tool) -> None:
    echo = by_name(manager)["mcp__test__echo"]
    result = await call_tool(echo, {"text": "hi"})
    assert isinstance(result.data, McpToolOutput) and not result.is_error
    assert echo.map_result_to_block(result.data, "toolu_1") == "echo: hi"


async def test_server_schema_is_the_input_schema_and_is_enforced(manager: McpManager) -> None:
    echo = by_name(manager)["mcp__test__echo"]
    schema = echo.input_json_schema()
    assert schema["type"] == "object" and schema["required"] == ["text"]
    with pytest.raises(InputValidationError, match="'text' is a required property"):
        echo.parse_input({})
    with pytest.raises(InputValidationError, match="is not of type 'string'"):
        echo.parse_input({"text": 5})


async def test_annotations_become_flags(manager: McpManager) -> None:
    tools = by_name(manager)
    echo, delete, note = tools["mcp__test__echo"], tools["mcp__test__delete_item"], tools["mcp__test__write_note"]
    assert echo.is_read_only(None) and echo.is_concurrency_safe(None) and not echo.is_destructive(None)
    assert not delete.is_read_only(None) and not delete.is_concurrency_safe(None) and delete.is_destructive(None)
    # no annotations at all: fail closed
    assert not note.is_read_only(None) and not note.is_concurrency_safe(None) and note.is_destructive(None)


async def test_image_result_becomes_an_image_block(manager: McpManager, call_tool) -> None:
    tool = by_name(manager)["mcp__test__make_image"]
    result = await call_tool(tool, {"color": "blue", "size": 2})
    blocks = tool.map_result_to_block(result.data, "toolu_1")
    assert blocks[0] == {"type": "text", "text": "a blue square"}
    image = blocks[1]
    assert image["type"] == "image" and image["source"]["type"] == "base64"
    assert image["source"]["media_type"] == "image/png"
    assert base64.b64decode(image["source"]["data"]).startswith(b"\x89PNG")


async def test_embedded_resource_becomes_text(manager: McpManager, call_tool) -> None:
    tool = by_name(manager)["mcp__test__embedded_resource"]
    result = await call_tool(tool, {"text": "inside"})
    assert tool.map_result_to_block(result.data, "t") == "[Resource memo://note]\ninside"


async def test_is_error_result_is_an_error_tool_result(manager: McpManager, call_tool) -> None:
    tool = by_name(manager)["mcp__test__fail"]
    result = await call_tool(tool, {"message": "quota exceeded"})
    assert result.is_error
    assert "quota exceeded" in tool.map_result_to_block(result.data, "t")


async def test_output_cap_truncates_big_results(manager: McpManager, call_tool) -> None:
    tool = by_name(manager)["mcp__test__big_output"]
    tool.max_output_tokens = 1_000
    result = await call_tool(tool, {"chars": 50_000})
    text = tool.map_result_to_block(result.data, "t")
    assert result.data.truncated and len(text) < 4_500 and "Output truncated" in text
    small = await call_tool(tool, {"chars": 100})
    assert not small.data.truncated and len(tool.map_result_to_block(small.data, "t")) == 100


async def test_read_only_calls_overlap(manager: McpManager, call_tool) -> None:
    slow = by_name(manager)["mcp__test__slow"]
    results = await asyncio.gather(*(call_tool(slow, {"sleep_seconds": 2.0}) for _ in range(4)))  # long enough for all four to start on a loaded machine
    spans = [json.loads(slow.map_result_to_block(r.data, "t")) for r in results]
    latest_start = max(s["start"] for s in spans)
    earliest_end = min(s["end"] for s in spans)
    assert latest_start < earliest_end, "the calls ran one after another"


async def test_list_changed_notification_marks_dirty_and_refresh_relists(manager: McpManager, call_tool) -> None:
    add = by_name(manager)["mcp__test__add_tool"]
    await call_tool(add, {"name": "late_tool"})
    await eventually(lambda: manager.connection("test").tools_dirty, "tools/list_changed marks the tools dirty")
    assert "mcp__test__late_tool" not in by_name(manager)
    await manager.refresh()
    late = by_name(manager)["mcp__test__late_tool"]
    result = await call_tool(late, {"text": "x"})
    assert late.map_result_to_block(result.data, "t") == "late_tool: x"


async def test_abort_cancels_a_running_call(manager: McpManager, call_tool) -> None:
    from nb_agent.abort import AbortController
    from nb_agent.errors import AbortError

    slow = by_name(manager)["mcp__test__slow"]
    controller = AbortController()
    asyncio.get_running_loop().call_later(0.2, controller.abort)
    # The call would sleep far longer than the suite's timeout: only the abort can end it, so
    # reaching the next line shows the abort cancelled it (no clock needed to tell).
    with pytest.raises(AbortError):
        await call_tool(slow, {"sleep_seconds": 3600}, controller)
    # the connection is still usable
    echo = by_name(manager)["mcp__test__echo"]
    assert (await call_tool(echo, {"text": "still here"})).data.content[0]["text"] == "echo: still here"


async def test_unknown_tool_on_server_is_an_error_result(manager: McpManager) -> None:
    result = await manager.call_mcp_tool("test", "no_such_tool", {})
    assert result.is_error


async def test_removed_server_tools_raise_tool_error(manager: McpManager, call_tool) -> None:
    echo = by_name(manager)["mcp__test__echo"]
    assert await manager.remove_server("test")
    assert manager.tools() == [] and manager.list_servers() == []
    with pytest.raises(ToolError, match="no longer configured"):
        await call_tool(echo, {"text": "x"})
    assert not await manager.remove_server("test")
