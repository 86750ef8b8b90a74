"""The test server's generated tools: N synthetic ones, or real definitions from a catalog."""

from __future__ import annotations

import json
from pathlib import Path

from nb_agent.mcp import McpManager
from nb_agent.testing.mcp_server import stdio_config

CATALOG = {
    "servers": {
        "github": [
            {
                "name": "list_pull_requests",
                "description": "List pull requests in a GitHub repository.",
                "inputSchema": {
                    "type": "object",
                    "properties": {"owner": {"type": "string"}, "repo": {"type": "string"}},
                    "required": ["owner", "repo"],
                },
                "annotations": {"readOnlyHint": True},
            },
            {
                "name": "delete_repository",
                "description": "Delete a GitHub repository.",
                "inputSchema": {"type": "object", "properties": {"repo": {"type": "string"}}},
                "annotations": {"destructiveHint": True, "readOnlyHint": False},
            },
        ],
        "time": [{"name": "get_current_time", "description": "Get current time.", "inputSchema": {"type": "object"}}],
    },
    "sources": [],
    "note": "test subset",
}


async def test_five_hundred_synthetic_tools() -> None:
    manager = McpManager(servers={"many": stdio_config("--bare", "--tools", "500")})
    await manager.ensure_started()
    tools = manager.tools()
    assert len(tools) == 500 and manager.list_servers()[0].tool_count == 500
    assert len({t.name for t in tools}) == 500
    assert any(t.is_read_only(None) for t in tools) and any(not t.is_read_only(None) for t in tools)
    await manager.aclose()


async def test_catalog_tools_keep_their_schema_and_annotations(tmp_path: Path, call_tool) -> None:
    path = tmp_path / "catalog.json"
    path.write_text(json.dumps(CATALOG))
    manager = McpManager(
        servers={
            "github": stdio_config("--bare", "--catalog", str(path), "--catalog-server", "github"),
            "mixed": stdio_config("--bare", "--catalog", str(path)),
        }
    )
    await manager.ensure_started()
    tools = {t.name: t for t in manager.tools()}
    prs = tools["mcp__github__list_pull_requests"]
    assert prs.input_json_schema()["required"] == ["owner", "repo"]
    assert prs.prompt() == "List pull requests in a GitHub repository."
    assert prs.is_read_only(None) and not tools["mcp__github__delete_repository"].is_read_only(None)
    assert tools["mcp__github__delete_repository"].is_destructive(None)
    assert {"mcp__mixed__github_list_pull_requests", "mcp__mixed__time_get_current_time"} <= set(tools)
    result = await call_tool(prs, {"owner": "acme", "repo": "web"})
    assert prs.map_result_to_block(result.data, "t") == 'list_pull_requests called with {"owner": "acme", "repo": "web"}'
    await manager.aclose()
