"""Audit defect 2: ``stop_hook_active`` stays true after a Stop hook blocked, also when the
model then uses a tool (a hook that uses the flag as its loop guard must not loop)."""

from __future__ import annotations

from nb_agent.engine import EngineConfig, EngineOptions, QueryEngine
from nb_agent.hooks import HookInput, HookOutput, Hooks
from nb_agent.model.retry import NO_RETRIES
from nb_agent.testing import Reply, ScriptedTransport, text, tool_use
from nb_agent.testing.collect import collect
from nb_agent.testing.tools import RecordingTool


async def test_the_flag_survives_a_tool_turn_after_the_block(tmp_path) -> None:
    seen: list[bool | None] = []

    async def guard(hook_input: HookInput) -> HookOutput | None:
        seen.append(hook_input.stop_hook_active)
        if hook_input.stop_hook_active:  # the documented loop guard
            return None
        return HookOutput(blocking_error="run the checks first")

    hooks = Hooks()
    hooks.add("Stop", guard)
    turns = [
        Reply(content=[text("done")]),
        Reply(content=[tool_use("Echo", {"value": "checks"}, id="t1")]),
        Reply(content=[text("checks pass, done")]),
        Reply(content=[text("should never be needed")]),
    ]
    engine = QueryEngine(
        config=EngineConfig(cwd=tmp_path, options=EngineOptions(retry_policy=NO_RETRIES)),
        transport=ScriptedTransport(turns),
        tools=[RecordingTool("Echo")],
        hooks=hooks,
    )
    out = await collect(engine, "finish the task")
    assert out.result.subtype == "success" and out.result.text == "checks pass, done"
    assert seen == [False, True]
