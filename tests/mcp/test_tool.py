"""McpTool without a server: names, schema pass-through and validation, annotation flags."""

from __future__ import annotations

from typing import Any

import mcp_types as mt
import pytest

from nb_agent.errors import InputValidationError, ToolError
from nb_agent.mcp import McpTool, mcp_tool_name
from nb_agent.mcp.tool import MAX_DESCRIPTION_CHARS

SCHEMA = {
    "type": "object",
    "properties": {
        "owner": {"type": "string"},
        "state": {"type": "string", "enum": ["open", "closed"]},
        "perPage": {"type": "integer", "minimum": 1, "maximum": 100},
        "labels": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["owner"],
    "additionalProperties": False,
}


class RecordingCaller:
    def __init__(self, result: mt.CallToolResult | None = None, error: Exception | None = None) -> None:
        self.calls: list[tuple[str, str, dict[str, Any]]] = []
        self.result = result or mt.CallToolResult(content=[mt.TextContent(text="ok")])
        self.error = error

    async def call_mcp_tool(self, server: str, tool: str, arguments: dict[str, Any]) -> mt.CallToolResult:
        self.calls.append((server, tool, arguments))
        if self.error:
            raise self.error
        return self.result


def make(annotations: dict[str, Any] | None = None, *, name: str = "list_pull_requests", server: str = "github", **kw: Any) -> McpTool:
    definition = mt.Tool(
        name=name,
        description=kw.pop("description", "List pull requests."),
        input_schema=kw.pop("schema", SCHEMA),
        annotations=mt.ToolAnnotations.model_validate(annotations) if annotations is not None else None,
        **kw,
    )
    return McpTool(server_name=server, definition=definition, caller=kw.get("caller") or RecordingCaller())


def test_name_and_schema_pass_through() -> None:
    tool = make()
    assert tool.name == "mcp__github__list_pull_requests" and tool.is_mcp
    assert tool.to_api_definition() == {"name": tool.name, "description": "List pull requests.", "input_schema": SCHEMA}
    assert tool.user_facing_name() == "github - list_pull_requests (MCP)"


def test_names_are_normalised_to_the_api_alphabet() -> None:
    assert mcp_tool_name("my server.v2", "do/thing") == "mcp__my_server_v2__do_thing"
    assert mcp_tool_name("notion", "API-get-user") == "mcp__notion__API-get-user"


def test_long_descriptions_are_capped() -> None:
    tool = make(description="word " * 2_000)
    assert len(tool.prompt()) == MAX_DESCRIPTION_CHARS and tool.prompt().endswith("…")


def test_valid_input_keeps_every_key() -> None:
    parsed = make().parse_input({"owner": "acme", "state": "open", "labels": ["bug"]})
    assert parsed.arguments() == {"owner": "acme", "state": "open", "labels": ["bug"]}


@pytest.mark.parametrize(
    ("raw", "fragment"),
    [
        ({}, "'owner' is a required property"),
        ({"owner": "a", "state": "merged"}, "state: 'merged' is not one of"),
        ({"owner": "a", "perPage": 0}, "perPage: 0 is less than the minimum"),
        ({"owner": "a", "labels": ["x", 3]}, "labels[1]: 3 is not of type 'string'"),
        ({"owner": "a", "extra": 1}, "Additional properties are not allowed"),
    ],
)
def test_invalid_input_raises_a_readable_input_validation_error(raw: dict[str, Any], fragment: str) -> None:
    with pytest.raises(InputValidationError) as info:
        make().parse_input(raw)
    assert fragment in str(info.value)
    assert str(info.value).startswith("Invalid input for mcp__github__list_pull_requests:")


def test_broken_server_schema_does_not_block_calls() -> None:
    tool = make(schema={"type": "object", "properties": {"x": {"type": "no-such-type"}}})
    assert tool.parse_input({"x": 1}).arguments() == {"x": 1}


@pytest.mark.parametrize(
    ("annotations", "read_only", "destructive"),
    [
        ({"readOnlyHint": True}, True, False),
        ({"readOnlyHint": True, "destructiveHint": True}, True, False),  # read-only wins (spec)
        ({"destructiveHint": True}, False, True),
        ({"readOnlyHint": False, "destructiveHint": False}, False, False),
        ({"idempotentHint": True}, False, True),  # destructive unless said otherwise
        (None, False, True),  # no annotations: fail closed
    ],
)
def test_annotations_map_to_flags(annotations: dict[str, Any] | None, read_only: bool, destructive: bool) -> None:
    tool = make(annotations)
    parsed = tool.parse_input({"owner": "a"})
    assert tool.is_read_only(parsed) is read_only
    assert tool.is_concurrency_safe(parsed) is read_only
    assert tool.is_destructive(parsed) is destructive


def test_search_hint_and_always_load_come_from_meta() -> None:
    tool = make(_meta={"anthropic/searchHint": "github prs", "anthropic/alwaysLoad": True})
    assert tool.search_hint == "github prs" and tool.always_load


async def test_call_routes_through_the_caller_and_maps_the_result(call_tool) -> None:
    caller = RecordingCaller(mt.CallToolResult(content=[mt.TextContent(text="3 open")], is_error=True))
    tool = McpTool(server_name="github", definition=make().definition, caller=caller)
    result = await call_tool(tool, {"owner": "acme"})
    assert caller.calls == [("github", "list_pull_requests", {"owner": "acme"})]
    assert result.is_error
    assert tool.map_result_to_block(result.data, "toolu_1") == "3 open"


async def test_caller_errors_propagate_as_tool_errors(call_tool) -> None:
    tool = McpTool(server_name="s", definition=make().definition, caller=RecordingCaller(error=ToolError("server gone")))
    with pytest.raises(ToolError, match="server gone"):
        await call_tool(tool, {"owner": "a"})
