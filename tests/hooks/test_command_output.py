"""A command hook's exit codes and output, event by event (real processes, no engine)."""

from __future__ import annotations

import json
import sys
import time

import pytest

from nb_agent.hooks import HookInput, Hooks
from nb_agent.hooks.command import MAX_OUTPUT_BYTES
from nb_agent.hooks.types import HOOK_EVENTS

TO_MODEL = {"PreToolUse", "PostToolUse", "PostToolUseFailure", "Stop", "SubagentStop", "UserPromptSubmit", "PermissionRequest"}


def _registry(event: str, command: str, timeout: float = 10) -> Hooks:
    hooks, warnings = Hooks.from_settings({event: [{"hooks": [{"type": "command", "command": command, "timeout": timeout}]}]})
    assert warnings == []
    return hooks


def _input(event: str, tmp_path) -> HookInput:
    return HookInput(hook_event_name=event, cwd=str(tmp_path), tool_name="Bash" if "Tool" in event else None)


@pytest.mark.parametrize("event", HOOK_EVENTS)
async def test_exit_2_blocks_where_the_event_can_block_and_is_shown_elsewhere(event, tmp_path):
    hooks = _registry(event, "echo 'not now' >&2; exit 2")
    result = await hooks.run(event, _input(event, tmp_path))
    if event in TO_MODEL:
        assert result.blocking_errors == ["not now"] and result.system_messages == []
    else:
        assert result.blocking_errors == [] and result.system_messages == [f"{event} hook: not now"]
    assert result.warnings == []


@pytest.mark.parametrize("event", HOOK_EVENTS)
async def test_common_json_fields_for_every_event(event, tmp_path):
    reply = {"continue": False, "stopReason": "stop here", "systemMessage": "note for you", "suppressOutput": True,
             "hookSpecificOutput": {"hookEventName": event, "additionalContext": "ctx"}}  # fmt: skip
    hooks = _registry(event, f"echo {json.dumps(json.dumps(reply))}")
    result = await hooks.run(event, _input(event, tmp_path))
    assert result.prevent_continuation and result.stop_reason == "stop here"
    assert result.system_messages == ["note for you"]
    assert result.additional_contexts == ["ctx"] and result.visible_contexts == []


@pytest.mark.parametrize(("event", "is_context"), [("UserPromptSubmit", True), ("SessionStart", True), ("PreCompact", True), ("PreToolUse", False), ("Stop", False), ("Notification", False)])
async def test_plain_stdout_is_context_only_where_claude_code_makes_it_so(event, is_context, tmp_path):
    hooks = _registry(event, "echo 'plain words'")
    result = await hooks.run(event, _input(event, tmp_path))
    assert result.additional_contexts == (["plain words"] if is_context else [])
    assert result.warnings == []


@pytest.mark.parametrize(
    ("stdout", "message"),
    [
        ("{oops", "invalid JSON"),
        ("[1, 2]", None),  # does not start with '{': plain text, ignored for PreToolUse
        ('"a string"', None),
        ('{"decision": "maybe"}', "unknown decision"),
        ('{"hookSpecificOutput": {"permissionDecision": "sometimes"}}', "unknown permissionDecision"),
        ('{"hookSpecificOutput": {"updatedInput": "rm -rf /"}}', "updatedInput must be an object"),
        ('{"hookSpecificOutput": "nope"}', "hookSpecificOutput must be an object"),
    ],
)
async def test_malformed_output_is_a_warning_with_no_effect(stdout, message, tmp_path):
    script = tmp_path / "out.py"
    script.write_text(f"import sys\nsys.stdout.write({stdout!r})\n")
    hooks = _registry("PreToolUse", f"{sys.executable} {script}")
    result = await hooks.run("PreToolUse", _input("PreToolUse", tmp_path))
    assert result.permission_decision is None and result.updated_input is None and result.blocking_errors == []
    if message is None:
        assert result.warnings == []
    else:
        [warning] = result.warnings
        assert message in warning


async def test_a_hook_that_prints_past_the_cap_is_cut_and_said_so(tmp_path):
    script = tmp_path / "flood.py"
    script.write_text("import sys\nchunk = 'y' * 65536 + '\\n'\nfor _ in range(80):\n    sys.stdout.write(chunk)\n")
    hooks = _registry("SessionStart", f"{sys.executable} {script}")
    started = time.monotonic()
    result = await hooks.run("SessionStart", HookInput(hook_event_name="SessionStart", source="startup", cwd=str(tmp_path)))
    # Generous: only separates "the hook sat on a full pipe until its 60 s timeout" from "did not".
    assert time.monotonic() - started < 20
    [context] = result.additional_contexts
    assert len(context) < MAX_OUTPUT_BYTES + 100 and context.endswith("[hook output cut at 4 MB]")


async def test_a_hook_that_never_reads_stdin_is_fine(tmp_path):
    hooks = _registry("PreToolUse", "echo '{\"decision\": \"block\", \"reason\": \"no\"}'")
    big = HookInput(hook_event_name="PreToolUse", tool_name="Write", tool_input={"content": "z" * 2_000_000}, cwd=str(tmp_path))
    result = await hooks.run("PreToolUse", big)
    assert result.permission_decision == "deny" and result.blocking_errors == ["no"]


async def test_the_environment_and_directory_of_a_hook(tmp_path, monkeypatch):
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", "/some/other/project")  # a kernel started from Claude Code
    project = tmp_path / "project"
    elsewhere = tmp_path / "elsewhere"
    project.mkdir()
    elsewhere.mkdir()
    hooks, _ = Hooks.from_settings(
        {"Stop": [{"hooks": [{"type": "command", "command": 'echo "{\\"systemMessage\\": \\"$CLAUDE_PROJECT_DIR|$(pwd)\\"}"'}]}]},
        project_dir=str(project),
    )
    result = await hooks.run("Stop", HookInput(hook_event_name="Stop", cwd=str(elsewhere)))
    assert result.system_messages == [f"{project}|{elsewhere}"], "the project dir in the env, the session's cwd as the process's"
