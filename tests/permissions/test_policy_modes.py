"""RuleBasedPolicy.decide: rule order, the tool's own check, and the four modes."""

import json
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from nb_agent.errors import ConfigurationError
from nb_agent.permissions import PermissionAllow, PermissionAsk, PermissionDeny, RuleBasedPolicy, load_settings
from nb_agent.tools.base import ToolUseContext

MakeCtx = Callable[..., ToolUseContext]


async def decide(policy: RuleBasedPolicy, tool: Any, ctx: ToolUseContext, **raw: Any) -> Any:
    return await policy.decide(tool, tool.parse_input(raw), ctx)


@pytest.fixture
def ctx(project: Path, make_ctx: MakeCtx) -> ToolUseContext:
    return make_ctx(project)


@pytest.fixture
def policy(project: Path, home: Path) -> Callable[..., RuleBasedPolicy]:
    def make(**kwargs: Any) -> RuleBasedPolicy:
        return RuleBasedPolicy(project_dir=project, home=home, **kwargs)

    return make


# --- default mode ----------------------------------------------------------------------


async def test_default_mode_allows_read_only_tools(policy: Any, tools: SimpleNamespace, ctx: ToolUseContext) -> None:
    decision = await decide(policy(), tools.bash, ctx, command="ls -la")
    assert isinstance(decision, PermissionAllow)
    assert isinstance(await decide(policy(), tools.read, ctx, file_path="src/a.py"), PermissionAllow)
    assert isinstance(await decide(policy(), tools.search, ctx), PermissionAllow)


async def test_default_mode_asks_with_a_suggested_rule(policy: Any, tools: SimpleNamespace, ctx: ToolUseContext) -> None:
    decision = await decide(policy(), tools.bash, ctx, command="touch foo.txt")
    assert isinstance(decision, PermissionAsk)
    assert decision.suggested_rule == "Bash(touch:*)"
    assert "Bash" in decision.message
    edit = await decide(policy(), tools.edit, ctx, file_path="src/a.py")
    assert isinstance(edit, PermissionAsk)
    assert edit.suggested_rule == "Edit(src/**)"
    assert (await decide(policy(), tools.agent, ctx)).suggested_rule == "Agent"


async def test_allow_rule_allows(policy: Any, tools: SimpleNamespace, ctx: ToolUseContext) -> None:
    decision = await decide(policy(allow=["Bash(touch:*)"]), tools.bash, ctx, command="touch foo.txt")
    assert isinstance(decision, PermissionAllow)
    assert decision.reason is not None and "Bash(touch:*)" in decision.reason


async def test_always_allow_answer_adds_a_session_rule(policy: Any, tools: SimpleNamespace, ctx: ToolUseContext) -> None:
    p = policy()
    first = await decide(p, tools.bash, ctx, command="touch foo.txt")
    assert isinstance(first, PermissionAsk)
    assert first.suggested_rule is not None
    p.add_session_rule("allow", first.suggested_rule)
    assert isinstance(await decide(p, tools.bash, ctx, command="touch bar.txt"), PermissionAllow)
    assert [(r.text, r.source) for r in p.rules_by_source()["session"]] == [("Bash(touch:*)", "session")]
    p.add_session_rule("allow", "Bash(touch:*)")
    assert len(p.rules) == 1  # no duplicates


async def test_session_rule_must_be_well_formed(policy: Any) -> None:
    with pytest.raises(ConfigurationError):
        policy().add_session_rule("allow", "Bash(")


async def test_deny_beats_allow_and_names_the_rule(policy: Any, tools: SimpleNamespace, ctx: ToolUseContext) -> None:
    p = policy(allow=["Bash"], deny=["Bash(rm:*)"])
    decision = await decide(p, tools.bash, ctx, command="ls && rm -rf src")
    assert isinstance(decision, PermissionDeny)
    assert "Bash(rm:*)" in decision.message
    assert "caller" in decision.message


async def test_ask_beats_allow(policy: Any, tools: SimpleNamespace, ctx: ToolUseContext) -> None:
    p = policy(allow=["Bash(git:*)"], ask=["Bash(git push:*)"])
    decision = await decide(p, tools.bash, ctx, command="git push origin main")
    assert isinstance(decision, PermissionAsk)
    assert "Bash(git push:*)" in decision.message
    assert decision.suggested_rule is None  # "always allow" cannot override an ask rule
    assert isinstance(await decide(p, tools.bash, ctx, command="git pull"), PermissionAllow)


async def test_ask_rule_applies_to_read_only_tools(policy: Any, tools: SimpleNamespace, ctx: ToolUseContext) -> None:
    decision = await decide(policy(ask=["Read(.env)"]), tools.read, ctx, file_path=".env")
    assert isinstance(decision, PermissionAsk)


async def test_rules_from_settings_files(project: Path, home: Path, tools: SimpleNamespace, ctx: ToolUseContext) -> None:
    settings_dir = project / ".claude"
    settings_dir.mkdir()
    (settings_dir / "settings.json").write_text(
        json.dumps({"permissions": {"allow": ["Edit(/src/**)"], "deny": ["Read(secrets/**)"], "defaultMode": "plan"}})
    )
    (settings_dir / "settings.local.json").write_text("{not json")
    settings = load_settings(project, home=home)
    p = RuleBasedPolicy(settings=settings, home=home, mode="default")
    assert isinstance(await decide(p, tools.edit, ctx, file_path="src/a.py"), PermissionAllow)
    assert isinstance(await decide(p, tools.read, ctx, file_path="secrets/key"), PermissionDeny)
    assert p.mode == "default"  # the explicit mode beats defaultMode
    assert RuleBasedPolicy(settings=settings).mode == "plan"
    assert len(p.warnings) == 1 and "settings.local.json" in p.warnings[0]
    assert list(p.rules_by_source()) == ["project"]


# --- the tool's own check --------------------------------------------------------------


async def test_tool_deny_wins_over_allow_rules_and_bypass(
    policy: Any, tools: SimpleNamespace, ctx: ToolUseContext
) -> None:
    tool = tools.scripted(PermissionDeny(message="no way"))
    for p in (policy(allow=["Scripted"]), policy(mode="bypassPermissions")):
        decision = await decide(p, tool, ctx)
        assert isinstance(decision, PermissionDeny) and decision.message == "no way"


async def test_tool_ask_wins_over_allow_rules_but_not_bypass(
    policy: Any, tools: SimpleNamespace, ctx: ToolUseContext
) -> None:
    tool = tools.scripted(PermissionAsk(message="sure?"))
    decision = await decide(policy(allow=["Scripted"]), tool, ctx)
    assert isinstance(decision, PermissionAsk) and decision.message == "sure?"
    assert decision.suggested_rule == "Scripted"
    assert isinstance(await decide(policy(mode="bypassPermissions"), tool, ctx), PermissionAllow)


async def test_tool_allow_with_updated_input_is_carried(
    policy: Any, tools: SimpleNamespace, ctx: ToolUseContext
) -> None:
    tool = tools.scripted(PermissionAllow(updated_input={"x": 1}), read_only=True)
    decision = await decide(policy(), tool, ctx)
    assert isinstance(decision, PermissionAllow) and decision.updated_input == {"x": 1}


async def test_deny_rule_is_checked_before_the_tool(policy: Any, tools: SimpleNamespace, ctx: ToolUseContext) -> None:
    tool = tools.scripted(PermissionAsk(message="sure?"))
    assert isinstance(await decide(policy(deny=["Scripted"]), tool, ctx), PermissionDeny)


# --- plan mode -------------------------------------------------------------------------


async def test_plan_mode_allows_reads_and_refuses_changes(
    policy: Any, tools: SimpleNamespace, ctx: ToolUseContext
) -> None:
    p = policy(mode="plan", allow=["Bash", "Edit"])
    assert isinstance(await decide(p, tools.bash, ctx, command="git status"), PermissionAllow)
    assert isinstance(await decide(p, tools.read, ctx, file_path="src/a.py"), PermissionAllow)
    for tool, raw in ((tools.bash, {"command": "touch x"}), (tools.edit, {"file_path": "src/a.py"})):
        decision = await decide(p, tool, ctx, **raw)
        assert isinstance(decision, PermissionDeny)
        assert "plan mode" in decision.message
        assert "no changes" in decision.message


async def test_context_in_plan_mode_makes_the_policy_stricter(
    policy: Any, tools: SimpleNamespace, project: Path, make_ctx: MakeCtx
) -> None:
    plan_ctx = make_ctx(project, permission_mode="plan")
    decision = await decide(policy(mode="bypassPermissions"), tools.bash, plan_ctx, command="touch x")
    assert isinstance(decision, PermissionDeny)
    bypass_ctx = make_ctx(project, permission_mode="bypassPermissions")
    decision = await decide(policy(), tools.bash, bypass_ctx, command="touch x")
    assert isinstance(decision, PermissionAsk)  # the context cannot loosen the policy


async def test_set_mode(policy: Any, tools: SimpleNamespace, ctx: ToolUseContext) -> None:
    p = policy()
    p.set_mode("plan")
    assert p.mode == "plan"
    assert isinstance(await decide(p, tools.bash, ctx, command="touch x"), PermissionDeny)
    with pytest.raises(ConfigurationError, match="unknown permission mode"):
        p.set_mode("yolo")  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError):
        policy(mode="yolo")


# --- acceptEdits and bypassPermissions ---------------------------------------------------


async def test_accept_edits_allows_file_edits_but_not_bash(
    policy: Any, tools: SimpleNamespace, ctx: ToolUseContext
) -> None:
    p = policy(mode="acceptEdits")
    for tool in (tools.edit, tools.write, tools.notebook_edit):
        assert isinstance(await decide(p, tool, ctx, file_path="src/a.py"), PermissionAllow)
    assert isinstance(await decide(p, tools.bash, ctx, command="touch x"), PermissionAsk)
    assert isinstance(await decide(p, tools.bash, ctx, command="ls"), PermissionAllow)


async def test_accept_edits_respects_deny_rules(policy: Any, tools: SimpleNamespace, ctx: ToolUseContext) -> None:
    p = policy(mode="acceptEdits", deny=["Edit(src/generated/**)"])
    assert isinstance(await decide(p, tools.write, ctx, file_path="src/generated/x.py"), PermissionDeny)


async def test_bypass_allows_everything_but_deny_and_ask_rules(
    policy: Any, tools: SimpleNamespace, ctx: ToolUseContext
) -> None:
    p = policy(mode="bypassPermissions", deny=["WebFetch(domain:evil.com)"], ask=["Bash(git push:*)"])
    assert isinstance(await decide(p, tools.bash, ctx, command="touch x && make"), PermissionAllow)
    assert isinstance(await decide(p, tools.edit, ctx, file_path="src/a.py"), PermissionAllow)
    assert isinstance(await decide(p, tools.mcp_create_issue, ctx), PermissionAllow)
    assert isinstance(await decide(p, tools.web_fetch, ctx, url="https://evil.com/x"), PermissionDeny)
    assert isinstance(await decide(p, tools.bash, ctx, command="git push"), PermissionAsk)


# --- lookups for other layers ----------------------------------------------------------


async def test_blanket_deny_rule_for_the_tool_pool(policy: Any, tools: SimpleNamespace) -> None:
    p = policy(deny=["mcp__github", "Bash(rm:*)", "Edit"])
    assert p.blanket_deny_rule(tools.mcp_create_issue).text == "mcp__github"
    assert p.blanket_deny_rule(tools.mcp_other) is None
    assert p.blanket_deny_rule(tools.bash) is None  # a content rule keeps the tool
    assert p.blanket_deny_rule(tools.write).text == "Edit"


async def test_matching_rule_lookup(policy: Any, tools: SimpleNamespace, ctx: ToolUseContext) -> None:
    p = policy(deny=["Edit(*.lock)"])
    inp = tools.edit.parse_input({"file_path": "uv.lock"})
    assert p.matching_rule(tools.edit, inp, ctx, behavior="deny").text == "Edit(*.lock)"
    assert p.matching_rule(tools.edit, inp, ctx, behavior="allow") is None


async def test_rules_listing_order(policy: Any) -> None:
    p = policy(allow=["Bash(ls:*)"], deny=["Bash(rm:*)"])
    p.add_session_rule("ask", "WebFetch(domain:x.com)")
    assert [(r.text, r.behavior, r.source) for r in p.rules] == [
        ("Bash(ls:*)", "allow", "caller"),
        ("Bash(rm:*)", "deny", "caller"),
        ("WebFetch(domain:x.com)", "ask", "session"),
    ]
    assert list(p.rules_by_source()) == ["caller", "session"]


async def test_relative_tool_paths_follow_the_session_cwd(
    policy: Any, tools: SimpleNamespace, project: Path, make_ctx: MakeCtx
) -> None:
    # The notebook runs in project/src; the rule is anchored at the project.
    ctx = make_ctx(project / "src")
    p = policy(allow=["Edit(src/**)"])
    assert isinstance(await decide(p, tools.edit, ctx, file_path="a.py"), PermissionAllow)
    assert isinstance(await decide(p, tools.edit, ctx, file_path="../a.py"), PermissionAsk)


async def test_suggested_edit_rule_is_relative_to_the_project(
    policy: Any, tools: SimpleNamespace, project: Path, make_ctx: MakeCtx
) -> None:
    ctx = make_ctx(project / "src")
    p = policy()
    decision = await decide(p, tools.edit, ctx, file_path="a.py")
    assert isinstance(decision, PermissionAsk) and decision.suggested_rule == "Edit(src/**)"
    p.add_session_rule("allow", decision.suggested_rule)
    assert isinstance(await decide(p, tools.edit, ctx, file_path="b.py"), PermissionAllow)
