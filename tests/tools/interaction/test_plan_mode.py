"""ExitPlanMode / EnterPlanMode: approval switches the mode (for the rest of the run too),
Keep planning returns the feedback, the model cannot pick the mode itself."""

from __future__ import annotations

import pytest

from nb_agent.permissions.types import PermissionAllow, PermissionDeny
from nb_agent.testing import Reply, text, tool_use
from nb_agent.testing.collect import assert_history_invariant, collect

PLAN = "1. Load sales.csv\n2. Compute the median per month\n3. Write report.md"




def _results(collected):
    return collected.tool_results


@pytest.mark.parametrize("chosen", ["default", "acceptEdits"])
async def test_approving_switches_the_mode_and_the_same_run_can_write(make_engine, tmp_path, chosen):
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
    engine = make_engine(turns, approve, mode="plan")
    events = await collect(engine, "analyse")
    results = _results(events)
    assert results[0]["content"].startswith(f"User has approved your plan. The session is now in {chosen} mode.")
    assert PLAN in results[0]["content"]
    assert not results[1].get("is_error"), results[1]
    assert (tmp_path / "report.md").read_text() == "# Report\n"
    assert engine.permission_policy.mode == chosen and engine.config.permission_mode == chosen
    assert asked == (["ExitPlanMode"] if chosen == "acceptEdits" else ["ExitPlanMode", "Write"])
    assert_history_invariant(engine.messages)


async def test_keep_planning_sends_the_feedback_and_stays_in_plan_mode(make_engine, tmp_path):
    async def keep(tool, request, ctx):
        return PermissionDeny(message="The user wants you to keep planning: use the mean, not the median")

    turns = [Reply(content=[tool_use("ExitPlanMode", {"plan": PLAN})]), Reply(content=[text("revising")])]
    engine = make_engine(turns, keep, mode="plan")
    [result] = _results(await collect(engine, "x"))
    assert result["is_error"] and "use the mean" in result["content"]
    assert engine.permission_policy.mode == "plan"


async def test_the_model_cannot_choose_its_own_mode(make_engine, tmp_path):
    async def never(tool, request, ctx):  # pragma: no cover
        raise AssertionError("asked")

    turns = [Reply(content=[tool_use("ExitPlanMode", {"plan": PLAN, "mode": "acceptEdits"})]), Reply(content=[text("x")])]
    engine = make_engine(turns, never, mode="plan")
    [result] = _results(await collect(engine, "x"))
    assert result["is_error"] and engine.permission_policy.mode == "plan"
    assert "mode" not in engine.tools[[t.name for t in engine.tools].index("ExitPlanMode")].input_json_schema()["properties"]


async def test_bypass_mode_still_asks_for_the_plan(make_engine, tmp_path):
    asked = []

    async def keep(tool, request, ctx):
        asked.append(request.tool_name)
        return PermissionDeny(message="keep planning")

    turns = [Reply(content=[tool_use("ExitPlanMode", {"plan": PLAN})]), Reply(content=[text("x")])]
    await collect(make_engine(turns, keep, mode="bypassPermissions"), "x")
    assert asked == ["ExitPlanMode"]


async def test_enter_plan_mode_asks_then_refuses_writes(make_engine, tmp_path):
    async def allow(tool, request, ctx):
        return PermissionAllow()

    turns = [
        Reply(content=[tool_use("EnterPlanMode", {})]),
        Reply(content=[tool_use("Write", {"file_path": str(tmp_path / "x.txt"), "content": "x"})]),
        Reply(content=[text("planning")]),
    ]
    engine = make_engine(turns, allow, mode="acceptEdits")
    results = _results(await collect(engine, "x"))
    assert results[0]["content"].startswith("Entered plan mode.")
    assert results[1]["is_error"] and "plan mode" in results[1]["content"]
    assert not (tmp_path / "x.txt").exists()
    assert engine.permission_policy.mode == "plan"
