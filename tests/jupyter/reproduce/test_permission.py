"""ReproduceNotebook runs every cell's code for real, so the permission policy treats it as
code execution: it asks in the default and acceptEdits modes, plan mode refuses it, and the
Bash sandbox with ``autoAllowBashIfSandboxed`` lets it run unasked (the fresh kernel runs
inside it)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from nb_agent.abort import AbortController
from nb_agent.jupyter.tools import KernelBridge, ReproduceNotebook
from nb_agent.permissions import RuleBasedPolicy
from nb_agent.permissions.types import PermissionAllow, PermissionAsk, PermissionDeny
from nb_agent.tools.base import ToolSession, ToolUseContext
from nb_agent.tools.bash.sandbox import SandboxAvailability, SandboxRuntime, SandboxSettings
from nb_agent.tools.services import ToolServices

TOOL = ReproduceNotebook(KernelBridge(shell=None))


def _decide(project: Path, *, mode: str = "default", sandbox: SandboxRuntime | None = None, allow=(), deny=()):
    policy = RuleBasedPolicy(project_dir=project, home=project / "home", mode=mode, allow=allow, deny=deny)
    ctx = ToolUseContext(abort_controller=AbortController(), session=ToolSession(cwd=project), services=ToolServices(sandbox=sandbox))
    return asyncio.run(policy.decide(TOOL, TOOL.parse_input({}), ctx))


def _sandbox(project: Path, *, auto_allow: bool) -> SandboxRuntime:
    available = SandboxAvailability(available=True, backend="bubblewrap", executable="bwrap")
    settings = SandboxSettings(enabled=True, auto_allow_bash_if_sandboxed=auto_allow)
    return SandboxRuntime(project_dir=project, home=project / "home", availability=available, settings=settings)


@pytest.mark.parametrize("mode", ["default", "acceptEdits"])
def test_it_asks_unless_a_rule_allows_it(tmp_path: Path, mode: str):
    assert isinstance(_decide(tmp_path, mode=mode), PermissionAsk)
    assert isinstance(_decide(tmp_path, mode=mode, allow=("ReproduceNotebook",)), PermissionAllow)


def test_plan_mode_refuses_it(tmp_path: Path):
    assert not isinstance(_decide(tmp_path, mode="plan"), PermissionAllow)


def test_the_sandbox_lets_it_run_unasked_only_with_auto_allow(tmp_path: Path):
    assert isinstance(_decide(tmp_path, sandbox=_sandbox(tmp_path, auto_allow=True)), PermissionAllow)
    assert isinstance(_decide(tmp_path, sandbox=_sandbox(tmp_path, auto_allow=False)), PermissionAsk)


def test_a_deny_rule_wins_over_the_sandbox(tmp_path: Path):
    assert isinstance(_decide(tmp_path, sandbox=_sandbox(tmp_path, auto_allow=True), deny=("ReproduceNotebook",)), PermissionDeny)
