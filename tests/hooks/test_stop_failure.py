"""StopFailure: when the turn ends with an API error, StopFailure hooks run instead of Stop
(seed 002 §11.5), with the kind of error; they change nothing."""

from __future__ import annotations

import pytest

from nb_agent.engine import EngineConfig, EngineOptions, QueryEngine
from nb_agent.hooks import HookInput, HookOutput, Hooks
from nb_agent.model.retry import NO_RETRIES
from nb_agent.testing import ErrorReply, Reply, ScriptedTransport, rate_limit_error, text, tool_use
from nb_agent.testing.collect import assert_history_invariant, collect
from nb_agent.testing.tools import RecordingTool


@pytest.mark.parametrize(
    ("reply", "kind"),
    [
        (rate_limit_error(), "rate_limit"),
        (ErrorReply(status=401, error_type="authentication_error"), "authentication_failed"),
        (ErrorReply(status=400, error_type="invalid_request_error", message="Your credit balance is too low"), "billing_error"),
        (ErrorReply(status=400, error_type="invalid_request_error", message="bad field"), "invalid_request"),
        (ErrorReply(status=500, error_type="api_error"), "server_error"),
    ],
)
async def test_stop_failure_runs_instead_of_stop_with_the_error_kind(tmp_path, reply, kind) -> None:
    seen: dict[str, list[HookInput]] = {"Stop": [], "StopFailure": []}

    def recorder(event):
        async def hook(hook_input: HookInput) -> HookOutput:
            seen[event].append(hook_input)
            return HookOutput(blocking_error="keep going", continue_=True)  # changes nothing for StopFailure

        return hook

    hooks = Hooks()
    hooks.add("Stop", recorder("Stop"))
    hooks.add("StopFailure", recorder("StopFailure"), matcher=kind)
    turns = [Reply(content=[text("Working on it."), tool_use("Echo", {"value": "x"}, id="t1")]), reply]
    engine = QueryEngine(
        config=EngineConfig(cwd=tmp_path, options=EngineOptions(retry_policy=NO_RETRIES)),
        transport=ScriptedTransport(turns),
        tools=[RecordingTool("Echo")],
        hooks=hooks,
    )
    out = await collect(engine, "go")
    assert seen["Stop"] == []
    [failure] = seen["StopFailure"]
    assert failure.error == kind and failure.error_details and failure.stop_hook_active is None
    assert "error_details" in failure.to_json_dict() and failure.to_json_dict()["hook_event_name"] == "StopFailure"
    assert out.result.terminal_reason == "completed" and out.result.error, "the run still ends with the error"
    assert_history_invariant(engine.messages)


async def test_a_normal_end_runs_stop_not_stop_failure(tmp_path) -> None:
    ran: list[str] = []

    async def hook(hook_input: HookInput) -> None:
        ran.append(hook_input.hook_event_name)

    hooks = Hooks()
    hooks.add("Stop", hook)
    hooks.add("StopFailure", hook)
    engine = QueryEngine(config=EngineConfig(cwd=tmp_path), transport=ScriptedTransport([Reply(content=[text("done")])]), hooks=hooks)
    await collect(engine, "go")
    assert ran == ["Stop"]
