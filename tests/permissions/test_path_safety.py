"""Writes outside the working directories and to agent configuration always ask."""

import os
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from nb_agent.permissions import (
    PermissionAllow,
    PermissionAsk,
    PermissionDeny,
    RuleBasedPolicy,
    is_protected_config_path,
)
from nb_agent.tools.base import ToolUseContext

MakeCtx = Callable[..., ToolUseContext]
ALL_MODES = ("default", "acceptEdits", "bypassPermissions")


async def decide(policy: RuleBasedPolicy, tool: Any, ctx: ToolUseContext, **raw: Any) -> Any:
    return await policy.decide(tool, tool.parse_input(raw), ctx)


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    path = tmp_path / "outside"
    path.mkdir()
    return path


@pytest.fixture
def ctx(project: Path, make_ctx: MakeCtx) -> ToolUseContext:
    return make_ctx(project)


def make_policy(project: Path, home: Path, mode: str = "default", **kwargs: Any) -> RuleBasedPolicy:
    return RuleBasedPolicy(project_dir=project, home=home, mode=mode, **kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize("mode", ALL_MODES)
async def test_write_outside_always_asks_even_with_an_allow_rule(
    project: Path, home: Path, outside: Path, tools: SimpleNamespace, ctx: ToolUseContext, mode: str
) -> None:
    policy = make_policy(project, home, mode, allow=["Edit", f"Edit(/{outside}/**)"])
    for tool in (tools.edit, tools.write, tools.notebook_edit):
        decision = await decide(policy, tool, ctx, file_path=str(outside / "x.txt"))
        assert isinstance(decision, PermissionAsk), (mode, tool.name)
        assert "outside the working directories" in decision.message
        assert str(outside / "x.txt") in decision.message


async def test_deny_rule_still_wins_outside(
    project: Path, home: Path, outside: Path, tools: SimpleNamespace, ctx: ToolUseContext
) -> None:
    policy = make_policy(project, home, "bypassPermissions", deny=[f"Edit(/{outside}/**)"])
    assert isinstance(await decide(policy, tools.write, ctx, file_path=str(outside / "x")), PermissionDeny)


@pytest.mark.parametrize("path", ["../outside/x.txt", "src/../../outside/x.txt", "src/../../project/../outside/x"])
async def test_dot_dot_escape_is_caught(
    project: Path, home: Path, outside: Path, tools: SimpleNamespace, ctx: ToolUseContext, path: str
) -> None:
    policy = make_policy(project, home, "acceptEdits", allow=["Edit(src/**)"])
    assert isinstance(await decide(policy, tools.edit, ctx, file_path=path), PermissionAsk)


async def test_dot_dot_that_stays_inside_is_fine(
    project: Path, home: Path, tools: SimpleNamespace, ctx: ToolUseContext
) -> None:
    policy = make_policy(project, home, "acceptEdits")
    assert isinstance(await decide(policy, tools.edit, ctx, file_path="src/../notes.md"), PermissionAllow)


async def test_symlinked_directory_escaping_the_project_asks(
    project: Path, home: Path, outside: Path, tools: SimpleNamespace, ctx: ToolUseContext
) -> None:
    os.symlink(outside, project / "src" / "link")
    policy = make_policy(project, home, "acceptEdits", allow=["Edit(src/**)"])
    decision = await decide(policy, tools.write, ctx, file_path="src/link/new.txt")
    assert isinstance(decision, PermissionAsk)
    # A symlinked path also cannot satisfy an allow rule in default mode.
    policy = make_policy(project, home, allow=["Edit(src/**)"])
    assert isinstance(await decide(policy, tools.write, ctx, file_path="src/link/new.txt"), PermissionAsk)


async def test_symlinked_file_escaping_the_project_asks(
    project: Path, home: Path, outside: Path, tools: SimpleNamespace, ctx: ToolUseContext
) -> None:
    target = outside / "bashrc"
    target.write_text("")
    os.symlink(target, project / "src" / "rc")
    policy = make_policy(project, home, "bypassPermissions")
    assert isinstance(await decide(policy, tools.edit, ctx, file_path="src/rc"), PermissionAsk)


async def test_symlink_then_dot_dot_is_resolved_like_the_os(
    project: Path, home: Path, outside: Path, tools: SimpleNamespace, ctx: ToolUseContext
) -> None:
    (outside / "deep").mkdir()
    os.symlink(outside / "deep", project / "src" / "link")
    # Lexically ``src/link/../x`` is ``src/x``; the OS reads it as ``outside/x``.
    policy = make_policy(project, home, "acceptEdits")
    assert isinstance(await decide(policy, tools.edit, ctx, file_path="src/link/../x"), PermissionAsk)


async def test_project_reached_through_a_symlink_is_inside(
    project: Path, home: Path, tmp_path: Path, tools: SimpleNamespace, make_ctx: MakeCtx
) -> None:
    alias = tmp_path / "alias"
    os.symlink(project, alias)
    policy = make_policy(alias, home, "acceptEdits")
    ctx = make_ctx(alias)
    assert isinstance(await decide(policy, tools.edit, ctx, file_path=str(project / "src" / "a.py")), PermissionAllow)
    assert isinstance(await decide(policy, tools.edit, ctx, file_path="src/a.py"), PermissionAllow)


async def test_home_path_outside_the_project_asks(
    project: Path, home: Path, tools: SimpleNamespace, ctx: ToolUseContext
) -> None:
    policy = make_policy(project, home, "acceptEdits")
    decision = await decide(policy, tools.edit, ctx, file_path="~/notes.txt")
    assert isinstance(decision, PermissionAsk)
    assert str(home / "notes.txt") in decision.message


async def test_additional_directories_count_as_working_directories(
    project: Path, home: Path, outside: Path, tmp_path: Path, tools: SimpleNamespace, make_ctx: MakeCtx
) -> None:
    extra = tmp_path / "extra"
    extra.mkdir()
    ctx = make_ctx(project, additional=(extra,))
    policy = make_policy(project, home, "acceptEdits", additional_directories=[outside])
    assert isinstance(await decide(policy, tools.edit, ctx, file_path=str(outside / "a")), PermissionAllow)
    assert isinstance(await decide(policy, tools.edit, ctx, file_path=str(extra / "a")), PermissionAllow)
    assert isinstance(await decide(policy, tools.edit, ctx, file_path=str(tmp_path / "a")), PermissionAsk)


async def test_bash_cd_does_not_move_the_working_directory(
    project: Path, home: Path, outside: Path, tools: SimpleNamespace, make_ctx: MakeCtx
) -> None:
    drifted = make_ctx(outside)  # the session's cwd after ``cd ../outside``
    policy = make_policy(project, home, "acceptEdits")
    assert isinstance(await decide(policy, tools.edit, drifted, file_path="x.txt"), PermissionAsk)


@pytest.mark.parametrize(
    "path",
    [
        ".claude/settings.json",
        ".claude/settings.local.json",
        ".claude/hooks/pre.sh",
        ".nb_agent/config.toml",
        ".git/hooks/pre-commit",
        "sub/.claude/settings.json",
    ],
)
@pytest.mark.parametrize("mode", ALL_MODES)
async def test_agent_configuration_always_asks(
    project: Path, home: Path, tools: SimpleNamespace, ctx: ToolUseContext, path: str, mode: str
) -> None:
    policy = make_policy(project, home, mode, allow=["Edit", "Edit(**)"])
    decision = await decide(policy, tools.edit, ctx, file_path=path)
    assert isinstance(decision, PermissionAsk)
    assert "configuration" in decision.message


async def test_user_settings_file_is_protected(home: Path) -> None:
    assert is_protected_config_path(home / ".claude" / "settings.json")


@pytest.mark.parametrize("path", [".claude/commands/review.md", ".claude/agents/x.md", ".claude/skills/s/SKILL.md"])
async def test_everything_under_dot_claude_is_protected(
    project: Path, home: Path, tools: SimpleNamespace, ctx: ToolUseContext, path: str
) -> None:
    # Agents and skills change what the agent does (an agent definition names tools and
    # a mode), so unlike Claude Code, nb_agent asks for these too.
    policy = make_policy(project, home, "acceptEdits")
    assert isinstance(await decide(policy, tools.write, ctx, file_path=path), PermissionAsk)


async def test_symlink_to_a_settings_file_is_protected(
    project: Path, home: Path, tools: SimpleNamespace, ctx: ToolUseContext
) -> None:
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text("{}")
    os.symlink(project / ".claude" / "settings.json", project / "src" / "innocent.json")
    policy = make_policy(project, home, "bypassPermissions")
    assert isinstance(await decide(policy, tools.edit, ctx, file_path="src/innocent.json"), PermissionAsk)


async def test_deny_beats_the_configuration_ask(
    project: Path, home: Path, tools: SimpleNamespace, ctx: ToolUseContext
) -> None:
    policy = make_policy(project, home, deny=["Edit(.claude/**)"])
    decision = await decide(policy, tools.edit, ctx, file_path=".claude/settings.json")
    assert isinstance(decision, PermissionDeny)


# --- reads -----------------------------------------------------------------------------


async def test_read_outside_asks_in_default_mode_and_an_allow_rule_fixes_it(
    project: Path, home: Path, outside: Path, tools: SimpleNamespace, ctx: ToolUseContext
) -> None:
    policy = make_policy(project, home)
    decision = await decide(policy, tools.read, ctx, file_path=str(outside / "data.csv"))
    assert isinstance(decision, PermissionAsk)
    assert decision.suggested_rule == f"Read(/{outside}/**)"
    policy.add_session_rule("allow", decision.suggested_rule)
    assert isinstance(await decide(policy, tools.read, ctx, file_path=str(outside / "data.csv")), PermissionAllow)


async def test_read_outside_is_allowed_in_bypass(
    project: Path, home: Path, outside: Path, tools: SimpleNamespace, ctx: ToolUseContext
) -> None:
    policy = make_policy(project, home, "bypassPermissions")
    assert isinstance(await decide(policy, tools.glob, ctx, file_path=str(outside)), PermissionAllow)


async def test_read_deny_rule_sees_through_symlinks(
    project: Path, home: Path, outside: Path, tools: SimpleNamespace, ctx: ToolUseContext
) -> None:
    (outside / "key").write_text("secret")
    os.symlink(outside, project / "src" / "mirror")
    policy = make_policy(project, home, "bypassPermissions", deny=[f"Read(/{outside}/**)"])
    assert isinstance(await decide(policy, tools.read, ctx, file_path="src/mirror/key"), PermissionDeny)


@pytest.mark.parametrize("program", ["mv", "cp", "rm", "touch"])
async def test_a_users_prefix_rule_for_a_file_mover_still_asks_outside(
    project: Path, home: Path, outside: Path, tools: SimpleNamespace, ctx: ToolUseContext, program: str
) -> None:
    # Always allow offers the exact command for mv, cp and rm; a user can still write the
    # prefix rule Bash(mv:*) themselves: it must not reach past the working directories
    (project / "data.csv").write_text("a,b\n")
    policy = make_policy(project, home, "default", allow=[f"Bash({program}:*)"])
    target = outside / "data.csv"
    command = f"{program} {target}" if program in ("rm", "touch") else f"{program} data.csv {target}"
    decision = await decide(policy, tools.bash, ctx, command=command)
    assert isinstance(decision, PermissionAsk) and "outside the working directories" in decision.message, (command, decision)
    inside = f"{program} data.csv" if program in ("rm", "touch") else f"{program} data.csv copy.csv"
    assert isinstance(await decide(policy, tools.bash, ctx, command=inside), PermissionAllow), inside


@pytest.mark.parametrize(
    "command",
    ["mv data.csv $OUT", 'mv data.csv "$OUT/a"', "mv data.csv {OUTSIDE,x}/a", "mv data.csv $(echo OUTSIDE)/a", "mv data.csv `echo OUTSIDE`/a", "cp data.csv ${OUT:-OUTSIDE}"],
)
async def test_a_users_prefix_rule_for_a_file_mover_asks_when_the_path_is_known_only_at_run_time(
    project: Path, home: Path, outside: Path, tools: SimpleNamespace, ctx: ToolUseContext, command: str
) -> None:
    # where a variable, a substitution or a brace expansion points is the shell's business at
    # run time: the rule cannot be shown to stay within the working directories, so it asks
    (project / "data.csv").write_text("a,b\n")
    policy = make_policy(project, home, "default", allow=["Bash(mv:*)", "Bash(cp:*)"])
    command = command.replace("OUTSIDE", str(outside))
    decision = await decide(policy, tools.bash, ctx, command=command)
    assert isinstance(decision, PermissionAsk), (command, decision)  # substitutions ask for their own reason


@pytest.mark.parametrize(
    "command",
    [
        "echo x > OUTSIDE/f", "echo x >> OUTSIDE/f", "echo x 1> OUTSIDE/f", "echo x >| OUTSIDE/f", "echo x &> OUTSIDE/f",
        "echo x 2> OUTSIDE/f", "echo x 3> OUTSIDE/f", "echo x >OUTSIDE/f", "echo x>OUTSIDE/f", "echo x > $OUT",
        "echo x > ../escape", "echo x | tee OUTSIDE/f", "echo $(echo x > OUTSIDE/f)", "echo x && echo y > OUTSIDE/f",
        "{ echo x; } > OUTSIDE/f", "(echo x) > OUTSIDE/f", "echo x > OUTSIDE/f; echo", "cat data.csv > OUTSIDE/f",
    ],
)  # fmt: skip
async def test_a_users_prefix_rule_does_not_cover_output_redirected_outside(
    project: Path, home: Path, outside: Path, tools: SimpleNamespace, ctx: ToolUseContext, command: str
) -> None:
    # Bash(echo:*) names a program; where the shell sends its output is the command's, not
    # the program's: every spelling of a redirection outside the working directories asks
    (project / "data.csv").write_text("a,b\n")
    policy = make_policy(project, home, "default", allow=["Bash(echo:*)", "Bash(cat:*)"])
    assert isinstance(await decide(policy, tools.bash, ctx, command="echo x"), PermissionAllow)  # the rule applies
    command = command.replace("OUTSIDE", str(outside))
    decision = await decide(policy, tools.bash, ctx, command=command)
    assert isinstance(decision, PermissionAsk), (command, decision)
