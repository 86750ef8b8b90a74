"""When a command runs sandboxed and what that does to its approval; kills, timeouts and
background shells keep working inside the sandbox."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from nb_agent.abort import AbortController
from nb_agent.permissions.policy import RuleBasedPolicy
from nb_agent.permissions.types import PermissionAllow, PermissionAsk
from nb_agent.tools.base import ToolSession, ToolUseContext
from nb_agent.tools.bash.background import BackgroundShells
from nb_agent.tools.bash.sandbox import SandboxAvailability, SandboxRuntime, SandboxSettings
from nb_agent.tools.bash.shell import _group_alive
from nb_agent.tools.bash.tool import BashInput, BashTool
from nb_agent.tools.services import ToolServices

pytestmark = pytest.mark.usefixtures("needs_sandbox")


def context(project: Path, runtime: SandboxRuntime) -> ToolUseContext:
    return ToolUseContext(abort_controller=AbortController(), session=ToolSession(cwd=project), services=ToolServices(sandbox=runtime))


async def decide(project: Path, runtime: SandboxRuntime, **input: object):
    tool = BashTool()
    return await RuleBasedPolicy(project_dir=project).decide(tool, BashInput(**input), context(project, runtime))


async def test_read_only_commands_run_sandboxed_and_approved_ones_do_not(project: Path) -> None:
    runtime = SandboxRuntime(project_dir=project)
    tool, ctx = BashTool(), context(project, runtime)
    ls = await tool.call(BashInput(command="ls"), ctx, lambda _: None)
    touch = await tool.call(BashInput(command="touch made.txt"), ctx, lambda _: None)  # as if approved
    assert ls.data.sandboxed and not touch.data.sandboxed and (project / "made.txt").exists()


async def test_enabled_sandboxes_everything_and_auto_allows_it(project: Path, tmp_path: Path) -> None:
    runtime = SandboxRuntime(project_dir=project, settings=SandboxSettings(enabled=True, excluded_commands=("docker",)))
    decision = await decide(project, runtime, command="touch made.txt")
    assert isinstance(decision, PermissionAllow) and decision.reason == "sandboxed (autoAllowBashIfSandboxed)"
    assert isinstance(await decide(project, runtime, command="docker ps"), PermissionAsk)  # excluded: asks
    assert isinstance(await decide(project, runtime, command="touch x", dangerouslyDisableSandbox=True), PermissionAsk)
    ctx = context(project, runtime)
    outside = tmp_path / "outside.txt"
    result = await BashTool().call(BashInput(command=f"touch made.txt {outside} /var/tmp/nb-agent-{time.time_ns()}"), ctx, lambda _: None)
    assert result.data.sandboxed and (project / "made.txt").exists() and not outside.exists()
    assert "Sandbox: this command ran" in result.data.to_text()


async def test_dangerously_disable_sandbox_is_never_auto_allowed_and_needs_settings_consent(project: Path) -> None:
    runtime = SandboxRuntime(project_dir=project)
    assert isinstance(await decide(project, runtime, command="ls", dangerouslyDisableSandbox=True), PermissionAsk)
    strict = SandboxRuntime(project_dir=project, settings=SandboxSettings(allow_unsandboxed_commands=False))
    decision = strict.decide("ls", classifier_allowed=False, disable_requested=True)
    assert decision.sandboxed is False  # not enabled and not read-only: approved commands run as before
    decision = SandboxRuntime(project_dir=project, settings=SandboxSettings(enabled=True, allow_unsandboxed_commands=False)).decide(
        "ls", classifier_allowed=False, disable_requested=True
    )
    assert decision.sandboxed  # the flag is ignored when unsandboxed runs are disabled


async def test_cell_override_turns_every_command_sandboxed(project: Path) -> None:
    runtime = SandboxRuntime(project_dir=project)
    assert not runtime.decide("touch x", classifier_allowed=False, disable_requested=False).sandboxed
    runtime.override = True
    assert runtime.decide("touch x", classifier_allowed=False, disable_requested=False).sandboxed
    runtime.override = False
    assert runtime.decide("ls", classifier_allowed=True, disable_requested=False).sandboxed  # read-only: always


async def test_background_shell_and_kill_inside_the_sandbox(project: Path) -> None:
    runtime = SandboxRuntime(project_dir=project)
    ctx = context(project, runtime)
    result = await BashTool().call(BashInput(command="sleep 30", run_in_background=True), ctx, lambda _: None)
    assert result.data.sandboxed and result.data.background_id
    shells = BackgroundShells.for_session(ctx.session)
    shell = shells.get(result.data.background_id)
    assert shell is not None and shell.status == "running"
    await shells.kill(shell.id)
    assert shell.status == "killed"
    await _until_gone(shell.command.pid)


async def _until_gone(pgid: int) -> None:
    """The namespace's last processes die with bubblewrap a moment after it (SIGKILL from
    --die-with-parent): no survivor may be left."""
    deadline = time.monotonic() + 20  # only a hang detector, for a loaded machine
    while time.monotonic() < deadline:
        if not _group_alive(pgid):
            return
        await asyncio.sleep(0.01)
    import subprocess

    ps = subprocess.run(["ps", "-eo", "pid,ppid,pgid,stat,cmd"], capture_output=True, text=True).stdout
    raise AssertionError(f"process group {pgid} still has live processes:\n" + "\n".join(line for line in ps.splitlines() if f" {pgid} " in line))


async def test_a_command_ignoring_sigterm_still_dies_with_the_sandbox(project: Path) -> None:
    ctx = context(project, SandboxRuntime(project_dir=project))
    result = await BashTool().call(BashInput(command="trap '' TERM; sleep 30; sleep 30", run_in_background=True), ctx, lambda _: None)
    shells = BackgroundShells.for_session(ctx.session)
    shell = shells.get(result.data.background_id)
    assert shell is not None
    await asyncio.sleep(0.3)
    await shells.kill(shell.id)
    await _until_gone(shell.command.pid)


async def test_timeout_moves_a_sandboxed_command_to_the_background_and_cd_is_tracked(project: Path) -> None:
    runtime = SandboxRuntime(project_dir=project)
    ctx = context(project, runtime)
    moved = await BashTool().call(BashInput(command="sleep 20", timeout=300), ctx, lambda _: None)
    assert moved.data.sandboxed and moved.data.background_id and moved.data.timed_out_after_ms == 300
    await BackgroundShells.for_session(ctx.session).kill_all()
    cd = await BashTool().call(BashInput(command="cd src && pwd"), ctx, lambda _: None)
    assert cd.data.sandboxed and ctx.session.cwd == (project / "src").resolve()


async def test_abort_kills_the_sandboxed_group(project: Path) -> None:
    runtime = SandboxRuntime(project_dir=project)
    ctx = context(project, runtime)
    task = asyncio.ensure_future(BashTool().call(BashInput(command="sleep 30 & sleep 30"), ctx, lambda _: None))
    await asyncio.sleep(0.5)
    ctx.abort_controller.abort("stop")
    result = await asyncio.wait_for(task, 20)  # the sleeps take 30 s: any bound below tells "stopped"
    assert result.data.interrupted and result.data.sandboxed


def test_missing_bubblewrap_is_reported_with_the_fix() -> None:
    from nb_agent.tools.bash.sandbox.availability import probe_availability

    missing = probe_availability("Linux", "/nonexistent/bwrap")
    assert not missing.available and "not installed" in missing.reason and "apt-get install bubblewrap" in missing.fix
    runtime = SandboxRuntime(project_dir=Path("/"), availability=SandboxAvailability(available=False, reason="r", fix="f"))
    assert runtime.decide("ls", classifier_allowed=True, disable_requested=False).unavailable
    assert runtime.unavailable_notice() is not None and runtime.unavailable_notice() is None  # said once
    assert runtime.status_line().startswith("unavailable: r — fix: f")
