"""ExitPlanMode / EnterPlanMode: approval switches the mode (for the rest of the run too),
Keep planning returns the feedback, the model cannot pick the mode itself."""

from __future__ import annotations

import pytest

from nb_agent.agent import create_engine
from nb_agent.permissions.types import PermissionAllow, PermissionDeny
from nb_agent.testing import Reply, ScriptedTransport, text, tool_use
from nb_agent.testing.collect import assert_history_invariant, collect

PLAN = "1. Load sales.csv\n2. Compute the median per month\n3. Write report.md"


def _engine(tmp_path, turns, can_use_tool, mode="plan"):
    engine, _ = create_engine(
        cwd=tmp_path, home=tmp_path, transport=ScriptedTransport(turns), mcp=False,
        can_use_tool=can_use_tool, permission_mode=mode,
    )  # fmt: skip
    return engine


def _results(collected):
    return collected.tool_results


@pytest.mark.parametrize("chosen", ["default", "acceptEdits"])
async def test_approving_switches_the_mode_and_the_same_run_can_write(tmp_path, chosen):
    asked = []

    async def approve(tool, request, ctx):
        asked.append(request.tool_name)
        if request.tool_name == "ExitPlanMode":
            return PermissionAllow(updated_input={**request.input, "mode": chosen})
        return PermissionAllow()  # the Write, asked in the default mode

    turns = [
        Reply(content=[tool_use("ExitPlanMode", {"plan": PLAN})]),
        Reply(content=[tool_use("Write", {"file_path": str(tmp_path / "report.md"), "content": "# Report\n"})]),
        Reply(content=[text("written")]),
    ]
    engine = _engine(tmp_path, turns, approve)
    events = await collect(engine, "analyse")
    results = _results(events)
    assert results[0]["content"].startswith(f"User has approved your plan. The session is now in {chosen} mode.")
    assert PLAN in results[0]["content"]
    assert not results[1].get("is_error"), results[1]
    assert (tmp_path / "report.md").read_text() == "# Report\n"
    assert engine.permission_policy.mode == chosen and engine.config.permission_mode == chosen
    assert asked == (["ExitPlanMode"] if chosen == "acceptEdits" else ["ExitPlanMode", "Write"])
    assert_history_invariant(engine.messages)


async def test_keep_planning_sends_the_feedback_and_stays_in_plan_mode(tmp_path):
    async def keep(tool, request, ctx):
        return PermissionDeny(message="The user wants you to keep planning: use the mean, not the median")

    turns = [Reply(content=[tool_use("ExitPlanMode", {"plan": PLAN})]), Reply(content=[text("revising")])]
    engine = _engine(tmp_path, turns, keep)
    [result] = _results(await collect(engine, "x"))
    assert result["is_error"] and "use the mean" in result["content"]
    assert engine.permission_policy.mode == "plan"


async def test_the_model_cannot_choose_its_own_mode(tmp_path):
    async def never(tool, request, ctx):  # pragma: no cover
        raise AssertionError("asked")

    turns = [Reply(content=[tool_use("ExitPlanMode", {"plan": PLAN, "mode": "acceptEdits"})]), Reply(content=[text("x")])]
    engine = _engine(tmp_path, turns, never)
    [result] = _results(await collect(engine, "x"))
    assert result["is_error"] and engine.permission_policy.mode == "plan"
    assert "mode" not in engine.tools[[t.name for t in engine.tools].index("ExitPlanMode")].input_json_schema()["properties"]


async def test_bypass_mode_still_asks_for_the_plan(tmp_path):
    asked = []

    async def keep(tool, request, ctx):
        asked.append(request.tool_name)
        return PermissionDeny(message="keep planning")

    turns = [Reply(content=[tool_use("ExitPlanMode", {"plan": PLAN})]), Reply(content=[text("x")])]
    await collect(_engine(tmp_path, turns, keep, mode="bypassPermissions"), "x")
    assert asked == ["ExitPlanMode"]


async def test_enter_plan_mode_asks_then_refuses_writes(tmp_path):
    async def allow(tool, request, ctx):
        return PermissionAllow()

    turns = [
        Reply(content=[tool_use("EnterPlanMode", {})]),
        Reply(content=[tool_use("Write", {"file_path": str(tmp_path / "x.txt"), "content": "x"})]),
        Reply(content=[text("planning")]),
    ]
    engine = _engine(tmp_path, turns, allow, mode="acceptEdits")
    results = _results(await collect(engine, "x"))
    assert results[0]["content"].startswith("Entered plan mode.")
    assert results[1]["is_error"] and "plan mode" in results[1]["content"]
    assert not (tmp_path / "x.txt").exists()
    assert engine.permission_policy.mode == "plan"
