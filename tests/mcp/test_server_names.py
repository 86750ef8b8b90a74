"""MCP server names: rules match a server exactly, and names that could collide are refused."""

from __future__ import annotations

import json
from pathlib import Path

import mcp_types as mt
import pytest

from nb_agent.abort import AbortController
from nb_agent.errors import ConfigurationError
from nb_agent.mcp import McpManager, McpSettings, McpTool, McpToolInput, load_mcp_config
from nb_agent.permissions import PermissionAllow, PermissionAsk, PermissionDeny, RuleBasedPolicy
from nb_agent.testing.mcp_server import stdio_config
from nb_agent.tools.base import ToolSession, ToolUseContext


def _tool(server: str, name: str) -> McpTool:
    definition = mt.Tool(name=name, inputSchema={"type": "object", "properties": {}})
    return McpTool(server_name=server, definition=definition, caller=None)  # type: ignore[arg-type]


async def _decide(rules: dict[str, list[str]], tool: McpTool, tmp_path: Path):
    policy = RuleBasedPolicy(project_dir=tmp_path, home=tmp_path, **rules)  # type: ignore[arg-type]
    ctx = ToolUseContext(abort_controller=AbortController(), session=ToolSession(cwd=tmp_path))
    return await policy.decide(tool, McpToolInput(), ctx)  # the rules never read MCP arguments


@pytest.mark.parametrize("rule", ["mcp__github", "mcp__github__*"])
@pytest.mark.parametrize(
    ("server", "tool_name"),
    [("github__evil", "x"), ("github_", "_x"), ("github__", "x"), ("github-x", "y"), ("githubx", "y"), ("git", "hub__x")],
)
async def test_a_server_rule_never_covers_another_server(tmp_path: Path, rule: str, server: str, tool_name: str) -> None:
    tool = _tool(server, tool_name)
    assert isinstance(await _decide({"allow": [rule]}, tool, tmp_path), PermissionAsk), tool.name
    # and a deny rule for github does not reach it either (the name is simply not github's)
    assert not isinstance(await _decide({"deny": [rule]}, tool, tmp_path), PermissionDeny), tool.name


@pytest.mark.parametrize("rule", ["mcp__github", "mcp__github__*", "mcp__github__create_issue"])
async def test_rules_still_cover_the_named_server(tmp_path: Path, rule: str) -> None:
    tool = _tool("github", "create_issue")
    assert isinstance(await _decide({"allow": [rule]}, tool, tmp_path), PermissionAllow)
    assert isinstance(await _decide({"deny": [rule]}, tool, tmp_path), PermissionDeny)


async def test_a_server_name_with_odd_characters_is_matched_by_its_normalised_name(tmp_path: Path) -> None:
    tool = _tool("my.server", "t")
    assert tool.name == "mcp__my_server__t"
    assert isinstance(await _decide({"allow": ["mcp__my_server"]}, tool, tmp_path), PermissionAllow)


@pytest.mark.parametrize(
    ("servers", "refused", "named"),
    [
        (["github", "github__evil"], "github__evil", "github"),
        (["github__evil"], "github__evil", "github"),
        (["a_", "a"], "a_", "a"),
        (["my.server", "my_server"], "my_server", "my.server"),
        (["x y", "x_y"], "x_y", "x y"),
        (["___"], "___", "___"),
    ],
)
def test_colliding_names_in_mcp_json_are_refused_with_a_warning_naming_both(
    tmp_path: Path, servers: list[str], refused: str, named: str
) -> None:
    (tmp_path / ".mcp.json").write_text(json.dumps({"mcpServers": {name: {"command": "true"} for name in servers}}))
    loaded = load_mcp_config(cwd=tmp_path, user_config_path=tmp_path / "none.json")
    assert refused not in loaded.servers
    warning = next(str(i) for i in loaded.issues if i.server == refused)
    assert repr(refused) in warning and repr(named) in warning, warning
    assert set(loaded.servers) == set(servers) - {refused}


def test_a_project_server_cannot_shadow_a_user_server_by_normalisation(tmp_path: Path) -> None:
    user = tmp_path / "claude.json"
    user.write_text(json.dumps({"mcpServers": {"git.hub": {"command": "user-server"}}}))
    (tmp_path / ".mcp.json").write_text(json.dumps({"mcpServers": {"git_hub": {"command": "project-server"}}}))
    loaded = load_mcp_config(cwd=tmp_path, user_config_path=user)
    assert set(loaded.servers) == {"git.hub"} and loaded.servers["git.hub"].config.command == "user-server"


@pytest.mark.parametrize("name", ["demo__evil", "demo_", "de.mo"])
def test_runtime_add_refuses_colliding_names(name: str) -> None:
    manager = McpManager(settings=McpSettings(connect_timeout=30))
    manager.add_server("demo", stdio_config())
    manager.add_server("de_mo", stdio_config())
    with pytest.raises(ConfigurationError, match="refused"):
        manager.add_server(name, stdio_config())
    assert [r.name for r in manager.list_servers()] == ["de_mo", "demo"]


async def test_real_servers_only_the_exact_server_is_allowed(tmp_path: Path) -> None:
    manager = McpManager(servers={"demo": stdio_config(), "demox": stdio_config()}, settings=McpSettings(connect_timeout=30))
    try:
        await manager.ensure_started()
        tools = manager.tools()
        demo = [t for t in tools if t.server_name == "demo"]
        other = [t for t in tools if t.server_name == "demox"]
        assert demo and other
        for tool in demo:
            assert isinstance(await _decide({"allow": ["mcp__demo"]}, tool, tmp_path), PermissionAllow)
        for tool in other:
            assert isinstance(await _decide({"allow": ["mcp__demo"]}, tool, tmp_path), PermissionAsk)
    finally:
        await manager.aclose()
