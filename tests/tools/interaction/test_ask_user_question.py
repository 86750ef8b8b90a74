"""AskUserQuestion: asked through the permission callback in every mode; the answers come
back as the tool result; the model cannot answer itself; abort while waiting."""

from __future__ import annotations

import asyncio

import pytest

from nb_agent.messages import normalize_for_api
from nb_agent.permissions.types import PermissionAllow, PermissionDeny
from nb_agent.testing import Reply, text, tool_use
from nb_agent.testing.collect import assert_history_invariant, assert_tool_result_invariant, collect

QUESTION = {
    "question": "Which metric should the analysis use?",
    "header": "Metric",
    "options": [
        {"label": "Median revenue", "description": "Robust to outliers"},
        {"label": "Mean revenue", "description": "Sensitive to big orders"},
    ],
    "multiSelect": False,
}




def _results(collected):
    return collected.tool_results


@pytest.mark.parametrize("mode", ["default", "acceptEdits", "plan", "bypassPermissions"])
async def test_the_question_is_asked_in_every_mode_and_answered(make_engine, tmp_path, mode):
    asked = []

    async def answer(tool, request, ctx):
        asked.append(request)
        return PermissionAllow(updated_input={**request.input, "answers": {QUESTION["question"]: "Median revenue"}})

    turns = [Reply(content=[tool_use("AskUserQuestion", {"questions": [QUESTION]})]), Reply(content=[text("median it is")])]
    engine = make_engine(turns, answer, mode)
    events = await collect(engine, "analyse")
    assert len(asked) == 1 and asked[0].tool_name == "AskUserQuestion"
    [result] = _results(events)
    assert result["content"] == (
        'User has answered your questions: "Which metric should the analysis use?"="Median revenue". '
        "You can now continue with the user's answers in mind."
    )
    assert not result.get("is_error")


async def test_the_model_cannot_answer_its_own_question(make_engine, tmp_path):
    async def never(tool, request, ctx):  # pragma: no cover - must not be reached
        raise AssertionError("asked")

    forged = {"questions": [QUESTION], "answers": {QUESTION["question"]: "Mean revenue"}}
    turns = [Reply(content=[tool_use("AskUserQuestion", forged)]), Reply(content=[text("ok")])]
    engine = make_engine(turns, never)
    [result] = _results(await collect(engine, "x"))
    assert result["is_error"] and "answers is set by the user's answer" in result["content"]


async def test_a_plain_allow_without_answers_is_an_error_not_an_invented_answer(make_engine, tmp_path):
    async def allow(tool, request, ctx):
        return PermissionAllow()

    turns = [Reply(content=[tool_use("AskUserQuestion", {"questions": [QUESTION]})]), Reply(content=[text("ok")])]
    [result] = _results(await collect(make_engine(turns, allow), "x"))
    assert result["is_error"] and "no answer" in result["content"]


async def test_a_refusal_reaches_the_model(make_engine, tmp_path):
    async def nobody(tool, request, ctx):
        return PermissionDeny(message="Nobody can answer questions in this run.")

    turns = [Reply(content=[tool_use("AskUserQuestion", {"questions": [QUESTION]})]), Reply(content=[text("assuming median")])]
    [result] = _results(await collect(make_engine(turns, nobody), "x"))
    assert result["is_error"] and "Nobody can answer questions in this run." in result["content"]


@pytest.mark.parametrize(
    "bad",
    [
        {"questions": []},
        {"questions": [QUESTION] * 2},
        {"questions": [{**QUESTION, "header": "A header too long"}]},
        {"questions": [{**QUESTION, "options": QUESTION["options"][:1]}]},
        {"questions": [{**QUESTION, "options": [QUESTION["options"][0]] * 2}]},
        {"questions": [QUESTION], "extra": 1},
    ],
)
async def test_malformed_questions_are_refused_before_asking(make_engine, tmp_path, bad):
    async def never(tool, request, ctx):  # pragma: no cover
        raise AssertionError("asked")

    turns = [Reply(content=[tool_use("AskUserQuestion", bad)]), Reply(content=[text("ok")])]
    [result] = _results(await collect(make_engine(turns, never), "x"))
    assert result["is_error"] and "InputValidationError" in result["content"]


async def test_abort_while_the_question_waits_keeps_the_invariant(make_engine, tmp_path):
    waiting = asyncio.Event()

    async def wait_forever(tool, request, ctx):
        waiting.set()
        await asyncio.Event().wait()

    turns = [Reply(content=[tool_use("AskUserQuestion", {"questions": [QUESTION]}), tool_use("TodoWrite", {"todos": []})])]
    engine = make_engine(turns, wait_forever)

    async def stop_when_asked():
        await waiting.wait()
        engine.interrupt()

    stopper = asyncio.ensure_future(stop_when_asked())
    collected = await asyncio.wait_for(collect(engine, "x"), timeout=10)
    await stopper
    assert collected.result.subtype == "interrupted"
    assert_tool_result_invariant(normalize_for_api(engine.messages))
    assert_history_invariant(engine.messages)
    results = _results(collected)
    assert len(results) == 2 and all(r["is_error"] for r in results)
