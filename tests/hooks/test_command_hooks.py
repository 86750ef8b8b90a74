"""Command hooks from a real ``.claude/settings.json``: JSON on stdin, exit 2, timeouts."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

from nb_agent.hooks import Hooks
from nb_agent.testing import Reply, text, tool_use
from nb_agent.testing.collect import assert_history_invariant, assert_tool_result_invariant, collect
from nb_agent.testing.tools import RecordingTool


def _settings(tmp_path: Path, hooks: dict) -> Hooks:
    path = tmp_path / ".claude" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"hooks": hooks}))
    registry, warnings = Hooks.from_settings(json.load(path.open())["hooks"])
    assert warnings == []
    return registry


def _script(tmp_path: Path, name: str, body: str) -> str:
    path = tmp_path / name
    path.write_text(f"#!{sys.executable}\n{body}")
    path.chmod(0o755)
    return str(path)


def _command(event_hooks: list[dict], matcher: str | None = None) -> list[dict]:
    entry: dict = {"hooks": event_hooks}
    if matcher is not None:
        entry["matcher"] = matcher
    return [entry]


def _turns(*calls):
    return [Reply(content=list(calls)), Reply(content=[text("ok")])]


def _warnings(out) -> list[str]:
    return [e.content for e in out.events if e.type == "system" and e.level == "warning"]


async def test_hook_gets_the_event_as_json_on_stdin(tmp_path, hook_engine):
    dump = tmp_path / "stdin.jsonl"
    script = _script(tmp_path, "dump.py", f"import sys\nopen({str(dump)!r}, 'a').write(sys.stdin.read() + '\\n')\n")
    hooks = _settings(
        tmp_path,
        {
            "PreToolUse": _command([{"type": "command", "command": script}], matcher="Echo"),
            "PostToolUse": _command([{"type": "command", "command": script}], matcher="Echo"),
        },
    )
    call = tool_use("Echo", {"value": "hello"})
    engine, _ = hook_engine(_turns(call), hooks, [RecordingTool("Echo")])
    out = await collect(engine, "go")
    assert out.result.subtype == "success"
    pre, post = [json.loads(line) for line in dump.read_text().splitlines()]
    assert pre["hook_event_name"] == "PreToolUse"
    assert pre["tool_name"] == "Echo"
    assert pre["tool_input"] == {"value": "hello"}
    assert pre["tool_use_id"] == call["id"]
    assert pre["session_id"] == engine.session_id
    assert pre["transcript_path"] == str(engine.transcript_path)
    assert pre["cwd"] == str(tmp_path)
    assert post["hook_event_name"] == "PostToolUse"
    assert post["tool_response"] == "Echo: hello"


async def test_exit_2_blocks_and_stderr_goes_to_the_model(tmp_path, hook_engine):
    script = _script(tmp_path, "block.py", "import sys\nsys.stderr.write('rm is not allowed here')\nsys.exit(2)\n")
    hooks = _settings(tmp_path, {"PreToolUse": _command([{"type": "command", "command": script}], matcher="Bash")})
    bash, echo = RecordingTool("Bash"), RecordingTool("Echo")
    calls = [tool_use("Bash", {"value": "rm -rf /"}), tool_use("Echo", {"value": "fine"})]
    engine, transport = hook_engine(_turns(*calls), hooks, [bash, echo])
    out = await collect(engine, "go")
    assert bash.calls == [] and [c.value for c in echo.calls] == ["fine"]
    blocked = out.tool_results[0]
    assert blocked["is_error"] and "rm is not allowed here" in blocked["content"]
    follow_up = transport.requests[1]["messages"]
    assert "rm is not allowed here" in json.dumps(follow_up)
    assert_tool_result_invariant(follow_up)


async def test_a_hanging_hook_is_killed_and_reported(tmp_path, hook_engine):
    pid_file = tmp_path / "pid"
    hooks = _settings(
        tmp_path,
        {"PreToolUse": _command([{"type": "command", "command": f"echo $$ > {pid_file}; exec sleep 100", "timeout": 1}])},
    )
    echo = RecordingTool("Echo")
    engine, _ = hook_engine(_turns(tool_use("Echo", {"value": "x"})), hooks, [echo])
    started = time.monotonic()
    out = await collect(engine, "go")
    # Generous: only separates "waited for the hook's 100 s sleep" from "did not" (shared machines).
    assert time.monotonic() - started < 20
    assert [c.value for c in echo.calls] == ["x"], "a failed hook does not block"
    assert any("timed out after 1s and was killed" in w for w in _warnings(out))
    pid = int(pid_file.read_text())
    try:
        os.kill(pid, 0)
        alive = True
    except ProcessLookupError:
        alive = False
    assert not alive


async def test_garbage_output_is_a_warning_with_no_effect(tmp_path, hook_engine):
    hooks = _settings(
        tmp_path,
        {
            "PreToolUse": _command(
                [
                    {"type": "command", "command": "echo '{this is not json'"},
                    {"type": "command", "command": "echo 'plain words are informational'"},
                ]
            )
        },
    )
    echo = RecordingTool("Echo")
    engine, _ = hook_engine(_turns(tool_use("Echo", {"value": "x"})), hooks, [echo])
    out = await collect(engine, "go")
    assert [c.value for c in echo.calls] == ["x"]
    assert out.tool_results[0]["content"] == "Echo: x"
    warnings = _warnings(out)
    assert len(warnings) == 1 and "invalid JSON" in warnings[0]


async def test_non_zero_exit_is_a_warning(tmp_path, hook_engine):
    hooks = _settings(tmp_path, {"PreToolUse": _command([{"type": "command", "command": "echo oops >&2; exit 1"}])})
    echo = RecordingTool("Echo")
    engine, _ = hook_engine(_turns(tool_use("Echo", {"value": "x"})), hooks, [echo])
    out = await collect(engine, "go")
    assert [c.value for c in echo.calls] == ["x"]
    assert any("exited with 1: oops" in w for w in _warnings(out))


async def test_json_output_decisions(tmp_path, hook_engine):
    deny = json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "not on Fridays"}})
    hooks = _settings(tmp_path, {"PreToolUse": _command([{"type": "command", "command": f"echo '{deny}'"}], matcher="Echo")})
    echo = RecordingTool("Echo")
    engine, _ = hook_engine(_turns(tool_use("Echo", {"value": "x"})), hooks, [echo])
    out = await collect(engine, "go")
    assert echo.calls == []
    assert "not on Fridays" in out.tool_results[0]["content"]
    assert_history_invariant(engine.messages)


async def test_stop_command_hook_continue_false(tmp_path, hook_engine):
    stop = json.dumps({"continue": False, "stopReason": "quota reached"})
    hooks = _settings(tmp_path, {"Stop": _command([{"type": "command", "command": f"echo '{stop}'"}])})
    engine, _ = hook_engine([Reply(content=[text("done")])], hooks, [])
    out = await collect(engine, "go")
    assert out.result.terminal_reason == "stop_hook_prevented"
    assert any(e.type == "system" and e.content == "quota reached" for e in out.events)
