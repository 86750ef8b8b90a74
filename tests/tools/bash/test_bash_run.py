"""Bash runs a command: merged ordered output, exit codes, flags, input validation."""

from __future__ import annotations

from pathlib import Path

import pydantic
import pytest

from nb_agent.abort import AbortController
from nb_agent.tools.base import ToolResult, ToolSession, ToolUseContext
from nb_agent.tools.bash import BashOutputTool, BashTool, KillShellTool, bash_tools
from nb_agent.tools.bash import tool as bash_tool_module
from nb_agent.tools.bash.shell import shell_env


@pytest.fixture
def ctx(tmp_path: Path) -> ToolUseContext:
    return ToolUseContext(abort_controller=AbortController(), session=ToolSession(cwd=tmp_path, session_dir=tmp_path / "s"))


async def run(ctx: ToolUseContext, command: str, **fields: object) -> tuple[ToolResult, str]:
    tool = BashTool()
    result = await tool.call(tool.parse_input({"command": command, **fields}), ctx, lambda _: None)
    return result, tool.map_result_to_block(result.data, "toolu_1")  # type: ignore[return-value]


async def test_stdout_and_stderr_merged_in_order(ctx: ToolUseContext) -> None:
    result, text = await run(ctx, "echo a; echo b >&2; echo c")
    assert text == "a\nb\nc"
    assert not result.is_error


async def test_interleaving_preserved_across_many_writes(ctx: ToolUseContext) -> None:
    _, text = await run(ctx, "for i in 1 2 3 4 5; do echo out$i; echo err$i >&2; done")
    assert text.splitlines() == [f"{kind}{i}" for i in range(1, 6) for kind in ("out", "err")]


async def test_non_zero_exit_is_an_error_with_exit_code(ctx: ToolUseContext) -> None:
    result, text = await run(ctx, "echo before; exit 3")
    assert result.is_error
    assert text == "before\nExit code 3"
    assert result.data.exit_code == 3


async def test_grep_without_match_is_not_an_error(ctx: ToolUseContext, tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("hello\n")
    result, text = await run(ctx, "grep nothing-here f.txt")
    assert not result.is_error
    assert "Exit code 1 (No matches found)" in text


async def test_exit_two_of_grep_is_still_an_error(ctx: ToolUseContext) -> None:
    result, _ = await run(ctx, "grep x /definitely/not/here")
    assert result.is_error


async def test_empty_output(ctx: ToolUseContext) -> None:
    result, text = await run(ctx, "true")
    assert text == "(no output)"
    assert not result.is_error


async def test_stdin_is_closed_so_reading_commands_do_not_hang(ctx: ToolUseContext) -> None:
    # A command left waiting on stdin would hit the timeout and move to the background.
    result, _ = await run(ctx, "cat; read line; echo done", timeout=30_000)
    assert result.data.timed_out_after_ms is None and result.data.background_id is None
    assert "done" in result.data.output


async def test_bash_error_messages_use_the_commands_line_numbers(ctx: ToolUseContext) -> None:
    _, text = await run(ctx, "nosuchcommand-xyz")
    assert "bash: line 1: nosuchcommand-xyz: command not found" in text
    assert "Exit code 127" in text


async def test_heredoc_and_comments_work(ctx: ToolUseContext) -> None:
    _, text = await run(ctx, "# a comment\ncat <<'EOF'\nhello $HOME\nEOF")
    assert text == "hello $HOME"


async def test_small_output_file_is_removed(ctx: ToolUseContext, tmp_path: Path) -> None:
    await run(ctx, "echo hi")
    assert list((tmp_path / "s" / "bash").iterdir()) == []


async def test_no_session_dir_uses_a_temp_dir(tmp_path: Path) -> None:
    ctx = ToolUseContext(abort_controller=AbortController(), session=ToolSession(cwd=tmp_path))
    _, text = await run(ctx, "echo hi")
    assert text == "hi"


def test_timeout_is_validated() -> None:
    tool = BashTool()
    assert tool.parse_input({"command": "ls", "timeout": 600_000}).timeout == 600_000
    for bad in (600_001, 0, -5):
        with pytest.raises(pydantic.ValidationError):
            tool.parse_input({"command": "ls", "timeout": bad})
    with pytest.raises(pydantic.ValidationError):
        tool.parse_input({"command": "ls", "unknown": 1})


async def test_blank_command_fails_validation(ctx: ToolUseContext) -> None:
    tool = BashTool()
    verdict = await tool.validate_input(tool.parse_input({"command": "  "}), ctx)
    assert not verdict.ok


def test_flags_follow_the_read_only_classifier(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bash_tool_module, "is_read_only_command", lambda command: command == "ls")
    tool = BashTool()
    ls, rm = tool.parse_input({"command": "ls"}), tool.parse_input({"command": "rm -rf x"})
    assert tool.is_read_only(ls) and tool.is_concurrency_safe(ls)
    assert not tool.is_read_only(rm) and not tool.is_concurrency_safe(rm)
    assert tool.permission_rule_content(rm) == "rm -rf x"
    assert tool.interrupt_behavior() == "cancel"
    assert tool.max_result_size_chars == 30_000


def test_bash_tools_factory_and_definitions() -> None:
    tools = bash_tools()
    assert [t.name for t in tools] == ["Bash", "BashOutput", "KillShell"]
    assert isinstance(tools[1], BashOutputTool) and isinstance(tools[2], KillShellTool)
    definition = tools[0].to_api_definition()
    assert set(definition["input_schema"]["properties"]) == {
        "command", "timeout", "description", "run_in_background", "dangerouslyDisableSandbox"
    }
    prompt = tools[0].prompt()
    for phrase in ("quote", "Read", "Grep", "Glob", "run_in_background", "600000", "BashOutput"):
        assert phrase in prompt
    output_tool = tools[1]
    parsed = output_tool.parse_input({"bash_id": "bash_1"})
    assert output_tool.is_read_only(parsed) and output_tool.is_concurrency_safe(parsed)


def test_shell_env_drops_the_kernels_inline_backend() -> None:
    env = shell_env({"MPLBACKEND": "module://matplotlib_inline.backend_inline", "HOME": "/h"})
    assert "MPLBACKEND" not in env
    assert env["HOME"] == "/h" and env["GIT_EDITOR"] == "true"
    assert shell_env({"MPLBACKEND": "Agg"})["MPLBACKEND"] == "Agg"
