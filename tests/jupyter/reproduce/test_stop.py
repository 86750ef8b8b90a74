"""Stop during the reproducibility check ends the run and the scratch kernel with it: the
model's tool call is answered, no fresh kernel is left running, the user's kernel is usable."""

from __future__ import annotations

import time
from pathlib import Path

import nbformat

from nb_agent.testing import Reply, text, tool_use

GONE_WITHIN_S = 30
"""Generous: only separates "the scratch kernel was killed" from "it ran its 600 s sleep"."""


def _endless_notebook(path: Path) -> None:
    """A notebook whose first cell writes the scratch kernel's pid beside it, then sleeps."""
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(f"import os, time\n_ = open('{path.stem}.pid', 'w').write(str(os.getpid()))\ntime.sleep(600)")]
    nbformat.write(notebook, path)


def _gone(pid: int) -> bool:
    deadline = time.monotonic() + GONE_WITHIN_S
    while time.monotonic() < deadline:
        try:
            if "\nState:\tZ" in Path(f"/proc/{pid}/status").read_text():
                return True  # dead, only not yet reaped
        except FileNotFoundError:
            return True
        time.sleep(0.1)
    return False


def _scratch_pid(kernel, run, name: str) -> int:
    pid_file = kernel.cwd / f"{name}.pid"
    kernel.wait_for(run, lambda: pid_file.exists() and pid_file.read_text().strip() != "", timeout=120)  # generous: a fresh kernel
    return int(pid_file.read_text())


def test_stop_during_the_models_check_kills_the_scratch_kernel_and_answers_the_call(kernel):
    path = kernel.cwd / "endless_tool.ipynb"
    _endless_notebook(path)
    assert kernel.run(f"%agent notebook {path}").status == "ok"
    kernel.server.script.add(Reply(content=[tool_use("ReproduceNotebook", {"timeout_s": 900})]), Reply(content=[text("unused")]))
    run = kernel.start("%%agent --permission-mode bypassPermissions\ncheck it")
    pid = _scratch_pid(kernel, run, path.stem)
    kernel.interrupt()
    kernel.wait(run, timeout=60)
    assert run.status == "error" and run.errors[0]["ename"] == "AgentInterrupted"
    assert _gone(pid), "the scratch kernel outlived Stop"
    transcripts = list((kernel.cwd / ".nb_agent" / "sessions").glob("*.jsonl"))
    assert any("Interrupted by user" in p.read_text() for p in transcripts)  # the tool call was answered
    kernel.server.script._turns.clear()  # the unused reply
    assert kernel.run("1 + 1").status == "ok"


def test_stop_during_agent_reproduce_kills_the_scratch_kernel(kernel):
    path = kernel.cwd / "endless_command.ipynb"
    _endless_notebook(path)
    assert kernel.run(f"%agent notebook {path}").status == "ok"
    run = kernel.start("%agent reproduce --timeout 900")
    pid = _scratch_pid(kernel, run, path.stem)
    kernel.interrupt()
    kernel.wait(run, timeout=60)  # generous: the cell ends at once, the scratch kernel is killed first
    assert run.status == "ok", run.errors
    assert "Stopped: the fresh kernel was ended" in run.stdout
    assert _gone(pid), "the scratch kernel outlived Stop"
    assert kernel.run("1 + 1").status == "ok"
