"""MCP tools: a server's readOnlyHint does not skip the approval; rules do."""

from pathlib import Path

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
