"""Read deny and ask rules hold on case-insensitive file systems (issue 21, suspected):
macOS's and Windows' file systems open ``.env`` for ``.ENV``, so a deny rule compares
case-insensitively. Simulated here: Linux is case-sensitive, so the policy is checked on the
spelling a Mac user's file would be read through; allow rules never widen this way."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from nb_agent.abort import AbortController
from nb_agent.permissions import PermissionAllow, PermissionAsk, PermissionDeny, RuleBasedPolicy
from nb_agent.tools.base import ToolSession, ToolUseContext
from nb_agent.tools.bash import bash_tools
from nb_agent.tools.files import file_tools


def _tool(name: str) -> Any:
    return {t.name: t for t in [*file_tools(), *bash_tools()]}[name]


async def _decide(policy: RuleBasedPolicy, tool: Any, cwd: Path, **raw: Any) -> Any:
    ctx = ToolUseContext(abort_controller=AbortController(), session=ToolSession(cwd=cwd))
    parsed = tool.parse_input(raw)
    result = await tool.validate_input(parsed, ctx)
    if not result.ok:
        return result
    return await policy.decide(tool, parsed, ctx)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    (project / "config").mkdir(parents=True)
    for name in (".ENV", ".Env", "SECRETS.TXT", "config/Prod.Key"):  # what the user's file is opened as
        (project / name).write_text("secret\n")
    return project


@pytest.mark.parametrize("spelling", [".ENV", ".Env", "./.ENV", "SECRETS.TXT", "config/Prod.Key"])
async def test_a_deny_rule_covers_every_case_spelling(project: Path, spelling: str) -> None:
    policy = RuleBasedPolicy(project_dir=project, home=project.parent, mode="bypassPermissions",
                             deny=["Read(./.env)", "Read(secrets.txt)", "Read(config/*.key)"])  # fmt: skip
    read = await _decide(policy, _tool("Read"), project, file_path=spelling)
    assert isinstance(read, PermissionDeny), (spelling, read)
    bash = await _decide(policy, _tool("Bash"), project, command=f"cat {spelling}")
    assert isinstance(bash, PermissionDeny), (spelling, bash)


async def test_an_ask_rule_too_and_an_allow_rule_does_not_widen(project: Path, tmp_path: Path) -> None:
    policy = RuleBasedPolicy(project_dir=project, home=project.parent, mode="default", ask=["Read(./.env)"])
    assert isinstance(await _decide(policy, _tool("Read"), project, file_path=".ENV"), PermissionAsk)
    outside = tmp_path / "Shared"
    outside.mkdir()
    (outside / "notes.txt").write_text("x\n")
    for rule, expected in ((f"Read(/{tmp_path}/shared/**)", PermissionAsk), (f"Read(/{tmp_path}/Shared/**)", PermissionAllow)):
        allow = RuleBasedPolicy(project_dir=project, home=project.parent, mode="default", allow=[rule])
        decision = await _decide(allow, _tool("Read"), project, file_path=str(outside / "notes.txt"))
        assert isinstance(decision, expected), (rule, decision)
