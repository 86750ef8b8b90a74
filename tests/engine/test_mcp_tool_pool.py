"""The engine with a real MCP server: deferred tools, ToolSearch discovery, use next turn."""

from __future__ import annotations

from pathlib import Path

from nb_agent.agent import create_engine
from nb_agent.mcp.manager import McpManager
from nb_agent.testing import Reply, ScriptedTransport, text, tool_use
from nb_agent.testing.collect import collect
from nb_agent.testing.mcp_server import stdio_config


async def _discover_and_call(tmp_path: Path) -> list[dict]:
    manager = McpManager(cwd=tmp_path)
    manager.add_server("demo", stdio_config())
    transport = ScriptedTransport(
        [
            Reply(content=[tool_use("ToolSearch", {"query": "select:mcp__demo__echo"})]),
            Reply(content=[tool_use("mcp__demo__echo", {"text": "hello"})]),
            Reply(content=[text("The server said hello.")]),
        ]
    )
    engine, _ = create_engine(cwd=tmp_path, transport=transport, mcp=manager, home=tmp_path, allow=["mcp__demo"])
    try:
        out = await collect(engine, "use the demo server to echo hello")
    finally:
        await engine.aclose()
    assert out.result.subtype == "success", out.result
    first, second, third = transport.requests
    assert "deferred-tools" in str(first["system"]) and "demo" in str(first["system"])
    echo_result = third["messages"][-1]["content"][0]
    assert echo_result["type"] == "tool_result" and "hello" in str(echo_result["content"])
    return transport.requests


async def test_discovered_tools_join_the_tools_array_without_tool_references(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("NB_AGENT_TOOL_SEARCH", "on")
    monkeypatch.setenv("NB_AGENT_TOOL_REFERENCES", "0")
    first, second, _ = await _discover_and_call(tmp_path)
    names = lambda request: {t["name"] for t in request.get("tools", [])}  # noqa: E731
    assert "mcp__demo__echo" not in names(first) and "ToolSearch" in names(first)
    assert "mcp__demo__echo" in names(second)
    assert not any("defer_loading" in t for t in second["tools"])
    assert "- mcp__demo__echo:" in str(second["messages"][-1]["content"][0]["content"])


async def test_tool_references_send_only_the_found_deferred_tools(tmp_path: Path, monkeypatch) -> None:
    """The default: a found tool is referenced, and sent with defer_loading from then on;
    the tools that are not deferred (what the cached prefix holds) stay the same."""
    monkeypatch.setenv("NB_AGENT_TOOL_SEARCH", "on")
    first, second, third = await _discover_and_call(tmp_path)
    loaded = lambda request: [t for t in request["tools"] if not t.get("defer_loading")]  # noqa: E731
    assert loaded(first) == loaded(second) == loaded(third)
    assert not any(t.get("defer_loading") for t in first["tools"])
    assert [t["name"] for t in second["tools"] if t.get("defer_loading")] == ["mcp__demo__echo"]
    assert second["tools"] == third["tools"]
    [search_result] = second["messages"][-1]["content"][:1]
    assert search_result["type"] == "tool_result"
    assert search_result["content"] == [{"type": "tool_reference", "tool_name": "mcp__demo__echo"}]


async def test_bedrock_and_vertex_use_the_text_fallback(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("NB_AGENT_TOOL_SEARCH", "on")
    monkeypatch.setenv("CLAUDE_CODE_USE_VERTEX", "1")
    _, second, _ = await _discover_and_call(tmp_path)
    assert not any("defer_loading" in t for t in second["tools"])


async def test_builtins_win_name_collisions_and_deny_rules_remove_mcp_tools(tmp_path: Path) -> None:
    manager = McpManager(cwd=tmp_path)
    manager.add_server("demo", stdio_config())
    transport = ScriptedTransport([Reply(content=[text("ok")])])
    engine, _ = create_engine(cwd=tmp_path, transport=transport, mcp=manager, home=tmp_path, deny=["mcp__demo__delete_item"])
    try:
        await collect(engine, "hi")
    finally:
        await engine.aclose()
    names = [t.name for t in engine.tools]
    assert "mcp__demo__echo" in names and "mcp__demo__delete_item" not in names
    assert names.index("Bash") < names.index("mcp__demo__echo")
