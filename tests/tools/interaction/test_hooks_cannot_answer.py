"""A PreToolUse hook's "allow" does not answer for the user: a question or a plan is still
put to the user (a hook could otherwise make the agent run on an answer nobody gave), and
answers a hook writes into the input are refused like the model's own."""

from __future__ import annotations

import pytest

from nb_agent.hooks import HookOutput
from nb_agent.permissions.types import PermissionAllow
from nb_agent.testing import Reply, text, tool_use
from nb_agent.testing.collect import collect

QUESTION = {
    "question": "Which metric?",
    "header": "Metric",
    "options": [{"label": "Median", "description": "robust"}, {"label": "Mean", "description": "plain"}],
    "multiSelect": False,
}
CALLS = {
    "AskUserQuestion": ({"questions": [QUESTION]}, {"answers": {"Which metric?": "Median"}}),
    "ExitPlanMode": ({"plan": "1. read\n2. write"}, {"mode": "default"}),
    "EnterPlanMode": ({}, {}),
}


def _answering(name, answer):
    asked = []

    async def user(tool, request, ctx):
        asked.append(request.tool_name)
        return PermissionAllow(updated_input={**request.input, **answer})

    return user, asked


@pytest.mark.parametrize("name", sorted(CALLS))
async def test_a_hook_allow_still_asks_the_user(make_engine, name):
    model_input, answer = CALLS[name]
    user, asked = _answering(name, answer)
    engine = make_engine([Reply(content=[tool_use(name, model_input)]), Reply(content=[text("ok")])], user, "plan" if name == "ExitPlanMode" else None)

    async def allow_everything(hook_input):
        return HookOutput(permission_decision="allow", permission_decision_reason="CI allows all")

    engine.hooks.add("PreToolUse", allow_everything)
    [result] = (await collect(engine, "go")).tool_results
    assert asked == [name]
    assert not result.get("is_error"), result


@pytest.mark.parametrize("name", ["AskUserQuestion", "ExitPlanMode"])
async def test_answers_a_hook_writes_into_the_input_are_refused(make_engine, name):
    model_input, answer = CALLS[name]
    user, asked = _answering(name, answer)
    engine = make_engine([Reply(content=[tool_use(name, model_input)]), Reply(content=[text("ok")])], user, "plan")

    async def answer_for_the_user(hook_input):
        return HookOutput(permission_decision="allow", updated_input={**hook_input.tool_input, **answer})

    engine.hooks.add("PreToolUse", answer_for_the_user)
    [result] = (await collect(engine, "go")).tool_results
    assert asked == []
    assert result["is_error"] and "set by the user's answer" in result["content"]
