"""THE invariant under random abuse: ≥ 300 seeded runs mixing tool behaviours, model faults,
user aborts and cancellations. After every run the history holds the invariant, every
request the engine ever sent holds it, and the engine takes the next submission."""

from __future__ import annotations

import asyncio
import copy
import random
from collections import Counter
from pathlib import Path
from typing import Any

from nb_agent.engine import EngineConfig, EngineOptions, EngineResult, QueryEngine
from nb_agent.model.retry import NO_RETRIES, RetryPolicy
from nb_agent.permissions.types import PermissionAllow, PermissionAsk, PermissionDeny, PermissionPolicy
from nb_agent.testing import ErrorReply, Reply, ScriptedTransport, text, thinking, tool_use
from nb_agent.testing.collect import assert_history_invariant, assert_tool_result_invariant
from nb_agent.testing.tools import RecordingTool

SEED = 20240611
RUNS = 300
RUNS_PER_ENGINE = 10
FAST_RETRIES = RetryPolicy(base_delay_s=0.001, max_delay_s=0.001, jitter=0)
"""Every third engine retries (mid-stream retries withdraw what the failed attempt yielded)."""
BEHAVIOURS = ["ok", "ok", "fail", "crash", "sleep", "unknown", "invalid", "deny", "ask", "bash_fail"]


class SwitchableTransport:
    """Delegates to the current script; keeps every request across scripts."""

    def __init__(self) -> None:
        self.current = ScriptedTransport([])
        self.requests: list[dict[str, Any]] = []

    def play(self, turns: list[Any]) -> None:
        self.current = ScriptedTransport(turns)

    async def stream(self, request: dict[str, Any]):
        self.requests.append(copy.deepcopy(request))
        async for event in self.current.stream(request):
            yield event


class RandomPolicy(PermissionPolicy):
    async def decide(self, tool, input, ctx):
        if tool.name != "Guarded":
            return PermissionAllow()
        if input.value == "deny":
            return PermissionDeny(message="denied by rule")
        if input.value.startswith("ask"):
            return PermissionAsk(message="May I?")
        return PermissionAllow()


async def can_use_tool(tool, request, ctx):
    answer = request.input["value"]
    if answer == "ask_never":
        await asyncio.Event().wait()  # only scripted when an abort is coming
    await asyncio.sleep(0.001)
    return PermissionAllow() if answer == "ask_yes" else PermissionDeny(message="the user said no")


def _tool_call(rng: random.Random, abort_coming: bool) -> dict[str, Any]:
    behaviour = rng.choice(BEHAVIOURS)
    sleep = rng.choice([0, 0, 0.001, 0.005])
    if behaviour == "unknown":
        return tool_use("Missing", {})
    if behaviour == "invalid":
        return tool_use("Echo", {"sleep": "later"})
    if behaviour == "deny":
        return tool_use("Guarded", {"value": "deny"})
    if behaviour == "ask":
        value = rng.choice(["ask_yes", "ask_no", "ask_never"] if abort_coming else ["ask_yes", "ask_no"])
        return tool_use("Guarded", {"value": value})
    if behaviour == "bash_fail":
        return tool_use("Bash", {"value": "boom", "fail": True, "sleep": sleep})
    name = rng.choice(["Echo", "Echo", "Unsafe"])
    return tool_use(name, {"value": behaviour, "sleep": 0.01 if behaviour == "sleep" else sleep, "fail": behaviour == "fail", "crash": behaviour == "crash"})


def _model_turn(rng: random.Random, abort_coming: bool) -> Any:
    fault = rng.choices(["none", "error", "drop", "529", "500"], weights=[12, 2, 2, 1, 1])[0]
    if fault == "529":
        return ErrorReply(status=529, error_type="overloaded_error")
    if fault == "500":
        return ErrorReply(status=500)
    content: list[dict[str, Any]] = []
    if rng.random() < 0.15:
        content.append(thinking("let me think", signature="sig"))
    if rng.random() < 0.7:
        content.append(text("working on it " * rng.randint(1, 5)))
    for _ in range(rng.randint(0, 4)):
        content.append(_tool_call(rng, abort_coming))
        if rng.random() < 0.3:
            content.append(text("and "))
    if not content:
        content.append(text("ok"))
    kwargs: dict[str, Any] = {"delay": rng.choice([0, 0, 0.0005])}
    if fault == "error":
        kwargs["error_after_events"] = rng.randint(1, 30)
        kwargs["error_type"] = rng.choice(["overloaded_error", "api_error"])
    elif fault == "drop":
        kwargs["drop_after_events"] = rng.randint(0, 30)
    return Reply(content=content, **kwargs)


async def _one_run(rng: random.Random, engine: QueryEngine, transport: SwitchableTransport, outcomes: Counter) -> None:
    interruption = rng.choices(["none", "interrupt", "cancel"], weights=[6, 2, 1])[0]
    outcomes[f"interruption:{interruption}"] += 1
    turns = [_model_turn(rng, interruption == "interrupt") for _ in range(rng.randint(1, 3))]
    turns += [Reply(content=[text("all done")])] * 12  # spare turns for retries; dropped by the next play()
    transport.play(turns)
    loop = asyncio.get_running_loop()
    if interruption == "interrupt":
        loop.call_later(rng.uniform(0, 0.03), engine.interrupt)

    async def consume() -> EngineResult | None:
        result = None
        async for event in engine.submit_message(f"task {rng.random():.6f}"):
            if isinstance(event, EngineResult):
                result = event
        return result

    task = asyncio.ensure_future(consume())
    if interruption == "cancel":
        loop.call_later(rng.uniform(0, 0.03), task.cancel)
    try:
        result = await asyncio.wait_for(task, 10)
        outcomes[result.terminal_reason or result.subtype] += 1
    except asyncio.CancelledError:
        outcomes["cancelled outside the loop"] += 1
    assert_history_invariant(engine.messages)
    for request in transport.requests:
        assert_tool_result_invariant(request["messages"])


async def test_randomized_invariant(tmp_path: Path):
    rng = random.Random(SEED)
    outcomes: Counter = Counter()
    tools = [RecordingTool("Echo"), RecordingTool("Unsafe", concurrency_safe=False), RecordingTool("Bash"), RecordingTool("Guarded")]
    for block in range(RUNS // RUNS_PER_ENGINE):
        transport = SwitchableTransport()
        engine = QueryEngine(
            # faults must reach the loop: the retry policy is tested in tests/model/test_retry_*.py
            config=EngineConfig(cwd=tmp_path, streaming_tool_execution=block % 3 != 2, options=EngineOptions(retry_policy=NO_RETRIES)),
            tools=tools,
            transport=transport,
            permission_policy=RandomPolicy(),
            can_use_tool=can_use_tool,
        )
        for _ in range(RUNS_PER_ENGINE):
            await _one_run(rng, engine, transport, outcomes)
        # The engine still works normally after all that.
        transport.play([Reply(content=[text("still here")])])
        result = [e async for e in engine.submit_message("are you ok?")][-1]
        assert result.subtype == "success" and result.text == "still here"
        assert_tool_result_invariant(transport.requests[-1]["messages"])
        engine.close()
    await asyncio.sleep(0.05)
    assert all(call.ended is not None for tool in tools for call in tool.calls), "a tool outlived its run"
    assert sum(n for key, n in outcomes.items() if key.startswith("interruption:")) == RUNS
    for reason in ("completed", "aborted_streaming", "aborted_tools", "model_error", "interruption:cancel", "interruption:interrupt"):
        assert outcomes[reason] > 0, f"the random runs never reached {reason}: {dict(outcomes)}"
