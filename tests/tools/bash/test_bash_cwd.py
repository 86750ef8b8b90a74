"""The working directory persists across Bash calls (``cd`` sticks), safely."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from nb_agent.abort import AbortController
from nb_agent.tools.base import ToolResult, ToolSession, ToolUseContext
from nb_agent.tools.bash import BashTool


@pytest.fixture
def ctx(tmp_path: Path) -> ToolUseContext:
    (tmp_path / "sub").mkdir()
    return ToolUseContext(abort_controller=AbortController(), session=ToolSession(cwd=tmp_path, session_dir=tmp_path / "s"))


async def run(ctx: ToolUseContext, command: str, **fields: object) -> ToolResult:
    tool = BashTool()
    return await tool.call(tool.parse_input({"command": command, **fields}), ctx, lambda _: None)


async def test_cd_persists(ctx: ToolUseContext, tmp_path: Path) -> None:
    await run(ctx, "cd sub")
    assert ctx.session.cwd == (tmp_path / "sub").resolve()
    result = await run(ctx, "pwd")
    assert result.data.output.strip() == str((tmp_path / "sub").resolve())


async def test_cd_to_missing_directory_keeps_cwd(ctx: ToolUseContext, tmp_path: Path) -> None:
    result = await run(ctx, "cd does-not-exist")
    assert result.is_error
    assert "No such file or directory" in result.data.output
    assert ctx.session.cwd == tmp_path


async def test_cd_is_kept_even_when_a_later_command_fails(ctx: ToolUseContext, tmp_path: Path) -> None:
    result = await run(ctx, "cd sub && false")
    assert result.is_error
    assert ctx.session.cwd == (tmp_path / "sub").resolve()


async def test_cd_before_exit_is_kept(ctx: ToolUseContext, tmp_path: Path) -> None:
    await run(ctx, "cd sub; exit 0")
    assert ctx.session.cwd == (tmp_path / "sub").resolve()


async def test_path_with_spaces(ctx: ToolUseContext, tmp_path: Path) -> None:
    spaced = tmp_path / "with space"
    spaced.mkdir()
    await run(ctx, 'cd "with space"')
    assert ctx.session.cwd == spaced.resolve()
    result = await run(ctx, "pwd")
    assert result.data.output.strip() == str(spaced.resolve())


async def test_deleted_cwd_falls_back_to_an_existing_parent(ctx: ToolUseContext, tmp_path: Path) -> None:
    gone = tmp_path / "sub" / "gone"
    gone.mkdir()
    ctx.session.cwd = gone
    shutil.rmtree(gone)
    result = await run(ctx, "pwd")
    assert result.data.output.strip() == str((tmp_path / "sub").resolve())
    assert "Shell cwd was reset to" in BashTool().map_result_to_block(result.data, "t")
    assert ctx.session.cwd == tmp_path / "sub"


async def test_background_cd_does_not_move_the_session(ctx: ToolUseContext, tmp_path: Path) -> None:
    await run(ctx, "cd sub", run_in_background=True)
    assert ctx.session.cwd == tmp_path


async def test_timed_out_command_does_not_change_cwd(ctx: ToolUseContext, tmp_path: Path) -> None:
    ctx = replace(ctx, services=replace(ctx.services, bash_timeout_action="kill"))
    result = await run(ctx, "cd sub; sleep 30", timeout=200)
    assert result.is_error
    assert ctx.session.cwd == tmp_path
