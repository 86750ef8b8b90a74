"""MCP tools: a server's readOnlyHint does not skip the approval; rules do."""

from pathlib import Path

import pytest

from nb_agent.permissions import PermissionAllow, PermissionAsk, PermissionDeny, RuleBasedPolicy
from nb_agent.tools.base import ToolUseContext


async def test_read_only_mcp_tool_still_asks_then_allow_rule_allows(project: Path, home: Path, make_ctx, tools) -> None:
    tool = tools.mcp_list_repos
    tool.read_only = True  # the server said readOnlyHint: true
    ctx: ToolUseContext = make_ctx(project)
    asked = await RuleBasedPolicy(project_dir=project, home=home).decide(tool, tool.parse_input({}), ctx)
    assert isinstance(asked, PermissionAsk)
    allowed = await RuleBasedPolicy(project_dir=project, home=home, allow=["mcp__github"]).decide(tool, tool.parse_input({}), ctx)
    assert isinstance(allowed, PermissionAllow)
    denied = await RuleBasedPolicy(project_dir=project, home=home, deny=["mcp__github__list_repos"]).decide(
        tool, tool.parse_input({}), ctx
    )
    assert isinstance(denied, PermissionDeny)


async def test_read_only_mcp_tool_runs_in_plan_mode_after_approval_only(project: Path, home: Path, make_ctx, tools) -> None:
    tool = tools.mcp_list_repos
    tool.read_only = True
    ctx = make_ctx(project)
    decision = await RuleBasedPolicy(project_dir=project, home=home, mode="plan").decide(tool, tool.parse_input({}), ctx)
    assert isinstance(decision, PermissionAsk)


def _server_tool(server: str, tool: str):
    from tests.permissions.conftest import FakeMcpTool

    made = FakeMcpTool(f"mcp__{server}__{tool}")
    made.mcp_server_key = server
    return made


# (rule, server key, tool) -> does a deny rule cover it? Deny and ask rules ignore case;
# an allow rule is exact.
MCP_DENY_VARIANTS = [
    ("mcp__github", "GitHub", "x", True),
    ("mcp__GITHUB__*", "github", "x", True),
    ("mcp__github__Create_Issue", "github", "create_issue", True),
    ("mcp__github", "github__evil", "x", False),
    ("mcp__github", "githubx", "x", False),
    ("mcp__github__a", "github", "a__b", False),
    ("mcp__a__b", "a", "b__c", False),
]


@pytest.mark.parametrize(("rule", "server", "tool_name", "covered"), MCP_DENY_VARIANTS)
async def test_mcp_deny_rules_match_servers_loosely_and_exactly_where_it_matters(
    project: Path, home: Path, make_ctx, rule: str, server: str, tool_name: str, covered: bool
) -> None:
    tool = _server_tool(server, tool_name)
    ctx = make_ctx(project)
    denied = await RuleBasedPolicy(project_dir=project, home=home, deny=[rule]).decide(tool, tool.parse_input({}), ctx)
    assert isinstance(denied, PermissionDeny) is covered


@pytest.mark.parametrize(("rule", "server"), [("mcp__github", "GitHub"), ("mcp__GitHub", "github"), ("mcp__github", "github__evil")])
async def test_mcp_allow_rules_stay_exact(project: Path, home: Path, make_ctx, rule: str, server: str) -> None:
    tool = _server_tool(server, "x")
    decision = await RuleBasedPolicy(project_dir=project, home=home, allow=[rule]).decide(tool, tool.parse_input({}), make_ctx(project))
    assert isinstance(decision, PermissionAsk)
