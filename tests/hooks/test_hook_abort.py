"""Stop during a hook ends the run within a second, kills command hooks' process groups,
and a tool never starts after Stop (seed 000 §9.4)."""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

import pytest

from nb_agent.engine import EngineConfig, QueryEngine
from nb_agent.hooks import HookOutput, Hooks
from nb_agent.testing import Reply, ScriptedTransport, text, tool_use
from nb_agent.testing.collect import assert_history_invariant, collect
from nb_agent.testing.processes import process_alive
from nb_agent.testing.tools import RecordingTool


def _engine(tmp_path: Path, hooks: Hooks, echo: RecordingTool, *, final_text: bool = False) -> QueryEngine:
    turns = [Reply(content=[text("all done")])] if final_text else [Reply(content=[tool_use("Echo", {"value": "x"})]), Reply(content=[text("done")])]
    return QueryEngine(config=EngineConfig(cwd=tmp_path), tools=[echo], transport=ScriptedTransport(turns), hooks=hooks)


async def _wait_for(path: Path, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists() or not path.read_text().strip():
        assert time.monotonic() < deadline, f"{path} never appeared"
        await asyncio.sleep(0.02)


async def _stop_when(engine: QueryEngine, marker: Path) -> float:
    await _wait_for(marker)
    stopped_at = time.monotonic()
    engine.interrupt()
    return stopped_at


async def test_stop_during_a_python_hook_ends_at_once(tmp_path: Path) -> None:
    started = tmp_path / "started"

    async def slow(hook_input):
        started.write_text("1")
        await asyncio.sleep(60)
        return HookOutput(permission_decision="allow")

    hooks = Hooks()
    hooks.add("PreToolUse", slow, timeout=120)
    echo = RecordingTool("Echo")
    engine = _engine(tmp_path, hooks, echo)
    stopper = asyncio.ensure_future(_stop_when(engine, started))
    out = await collect(engine, "go")
    assert time.monotonic() - await stopper < 1.0
    assert echo.calls == [] and out.result.subtype == "interrupted"
    assert "Interrupted" in out.tool_results[0]["content"]


@pytest.mark.parametrize("decision", ["allow", None])
async def test_a_tool_never_starts_after_stop_even_when_the_hook_returns(tmp_path: Path, decision: str | None) -> None:
    engine_ref: list[QueryEngine] = []

    async def stop_then_answer(hook_input):
        engine_ref[0].interrupt()  # Stop lands while the hook is finishing
        return HookOutput(permission_decision=decision)

    hooks = Hooks()
    hooks.add("PreToolUse", stop_then_answer)
    echo = RecordingTool("Echo")
    engine = _engine(tmp_path, hooks, echo)
    engine_ref.append(engine)
    out = await collect(engine, "go")
    assert echo.calls == []
    assert out.result.subtype == "interrupted"
    assert_history_invariant(engine.messages)


async def test_a_hook_script_run_with_python_is_killed_too(tmp_path: Path) -> None:
    marker = tmp_path / "hook.pid"
    script = tmp_path / "hook.py"
    script.write_text(f"import os, time\nopen({str(marker)!r}, 'w').write(str(os.getpid()))\ntime.sleep(60)\n")
    hooks, _ = Hooks.from_settings({"PreToolUse": [{"hooks": [{"type": "command", "command": f"{sys.executable} {script}"}]}]})
    echo = RecordingTool("Echo")
    engine = _engine(tmp_path, hooks, echo)
    stopper = asyncio.ensure_future(_stop_when(engine, marker))
    await collect(engine, "go")
    assert time.monotonic() - await stopper < 1.0
    pid = int(marker.read_text())
    deadline = time.monotonic() + 2
    while process_alive(pid) and time.monotonic() < deadline:
        await asyncio.sleep(0.02)
    assert not process_alive(pid) and echo.calls == []


@pytest.mark.parametrize("event", ["UserPromptSubmit", "SessionStart"])
async def test_stop_during_a_prompt_hook_ends_at_once_and_sends_nothing(tmp_path: Path, event: str) -> None:
    pid_file = tmp_path / "child.pid"
    hooks, _ = Hooks.from_settings({event: [{"hooks": [{"type": "command", "command": f"sleep 60 & echo $! > {pid_file}; wait"}]}]})
    echo = RecordingTool("Echo")
    engine = _engine(tmp_path, hooks, echo)
    stopper = asyncio.ensure_future(_stop_when(engine, pid_file))
    out = await collect(engine, "go")
    assert time.monotonic() - await stopper < 1.0
    assert echo.calls == [] and engine.transport.requests == []
    assert out.result.subtype in ("prompt_blocked", "interrupted"), out.result
