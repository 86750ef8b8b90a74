"""The kernel's Stop button during a run: streaming, a Bash command, busy Python code."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from nb_agent.jupyter.errors import AgentInterrupted
from nb_agent.jupyter.view.glyphs import STOP
from nb_agent.testing import Reply, text, tool_use

from .conftest import STOP_WITHIN_S


def _gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return True
    return "\nState:\tZ" in state  # a zombie is dead, only not yet reaped


def _wait_gone(pid: int, timeout: float = STOP_WITHIN_S) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if _gone(pid):
            return True
        time.sleep(0.05)
    return _gone(pid)


def _assert_interrupted(run, interrupted_at):
    assert run.ended - interrupted_at < STOP_WITHIN_S, f"took {run.ended - interrupted_at:.2f}s"
    assert run.status == "error"
    (error,) = run.errors
    assert error["ename"] == "AgentInterrupted" and error["traceback"] == [AgentInterrupted.NOTICE]
    run.assert_ending_said_once("Agent run interrupted")
    for mime, shown in run.final_bundle.items():  # nor in other words (it said "⏹ Interrupted by user. The transcript…")
        assert f"{STOP} Interrupted by user" not in shown and "transcript" not in shown.lower(), (mime, shown)


def test_interrupt_while_streaming(kernel, requests_since):
    long_answer = "Streaming a long answer. " * 200
    kernel.server.script.add(Reply(content=[text(long_answer)], chunk_size=5, stream_duration=60.0))
    run = kernel.start("%%agent\ntell me a long story")
    kernel.wait_for(run, lambda: kernel.widgets.ever(lambda s: "Streaming a long answer" in str(s.get("value", ""))))
    interrupted_at = time.monotonic()
    kernel.interrupt()
    kernel.wait(run)
    _assert_interrupted(run, interrupted_at)
    assert "Streaming a long answer" in run.final_bundle["text/markdown"]  # what the user saw stays
    kernel.server.script.add(Reply(content=[text("Fine, a short one.")]))
    after = kernel.run("%%agent\nshorter please")
    assert after.status == "ok", after.errors
    assert "Fine, a short one." in after.final_bundle["text/markdown"]


def test_interrupt_kills_a_running_bash_command_and_its_children(kernel):
    command = "sleep 60 & echo $! > child.pid; echo $$ > shell.pid; wait"
    kernel.server.script.add(
        Reply(content=[tool_use("Bash", {"command": command})]), Reply(content=[text("unused")])
    )
    run = kernel.start("%%agent --permission-mode bypassPermissions\nwait a minute")
    child_pid_file, shell_pid_file = kernel.cwd / "child.pid", kernel.cwd / "shell.pid"
    kernel.wait_for(run, lambda: child_pid_file.exists() and shell_pid_file.exists() and shell_pid_file.read_text().strip() != "")
    time.sleep(0.2)
    child_pid, shell_pid = int(child_pid_file.read_text()), int(shell_pid_file.read_text())
    assert not _gone(child_pid)
    interrupted_at = time.monotonic()
    kernel.interrupt()
    kernel.wait(run)
    _assert_interrupted(run, interrupted_at)
    assert _wait_gone(child_pid), "the command's child survived the interrupt"
    assert _wait_gone(shell_pid), "the command's shell survived the interrupt"
    # the transcript answered the tool call
    transcripts = list((kernel.cwd / ".nb_agent" / "sessions").glob("*.jsonl"))
    assert any("Interrupted by user" in p.read_text() for p in transcripts)
    kernel.server.script._turns.clear()  # the unused reply


def test_interrupt_stops_busy_python_code(kernel):
    kernel.server.script.add(
        Reply(content=[tool_use("ExecuteCode", {"code": "busy_counter = 0\nwhile True:\n    busy_counter += 1"})]),
        Reply(content=[text("unused")]),
    )
    run = kernel.start("%%agent --permission-mode bypassPermissions\nspin")
    kernel.wait_for(run, lambda: kernel.widgets.ever(lambda s: "busy_counter" in str(s.get("value", "")) and "running" in str(s.get("value", ""))))
    time.sleep(0.3)
    interrupted_at = time.monotonic()
    kernel.interrupt()
    kernel.wait(run)
    _assert_interrupted(run, interrupted_at)
    kernel.server.script._turns.clear()
    # the kernel is healthy and the code really ran in the user's namespace
    after = kernel.run("print(busy_counter > 0)")
    assert after.status == "ok" and after.stdout.strip() == "True"


def test_transcript_is_saved_as_messages_arrive(kernel):
    kernel.server.script.add(Reply(content=[text("Saved as it goes.")]))
    run = kernel.run("%%agent\nsave this")
    assert run.status == "ok"
    newest = max((kernel.cwd / ".nb_agent" / "sessions").glob("*.jsonl"), key=os.path.getmtime)
    kinds = [json.loads(line)["kind"] for line in newest.read_text().splitlines()]
    assert "message" in kinds and "result" in kinds
    assert "Saved as it goes." in newest.read_text()
