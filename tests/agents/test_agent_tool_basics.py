"""The Agent tool end to end: only the subagent's final message comes back, with usage."""

from __future__ import annotations

from nb_agent.testing import Reply, text, tool_use
from nb_agent.testing.collect import assert_history_invariant, collect


def agent_call(prompt: str, *, kind: str | None = None, id: str | None = None, **extra):
    payload = {"description": "look around", "prompt": prompt, **extra}
    if kind:
        payload["subagent_type"] = kind
    return tool_use("Agent", payload, id=id)


async def test_only_the_final_message_returns_to_the_parent(make_agent_engine):
    engine, script = make_agent_engine({
        "": [
            Reply(content=[agent_call("[sub] find the value", kind="Explore", id="toolu_agent_1")]),
            Reply(content=[text("The subagent says 42.")]),
        ],
        "[sub]": [
            Reply(content=[tool_use("Echo", {"value": "a long intermediate result " * 20})]),
            Reply(content=[text("The value is 42.")]),
        ],
    })
    out = await collect(engine, "what is the value?")
    assert out.result.subtype == "success", out.result
    script.assert_exhausted()
    [result] = [r for r in out.tool_results if r["tool_use_id"] == "toolu_agent_1"]
    assert not result.get("is_error")
    assert result["content"].startswith("The value is 42.")
    assert "tool_uses: 1" in result["content"] and "total_tokens:" in result["content"]
    # the intermediate Echo result stayed in the subagent's context
    final_request = script.requests_by_route[""][-1]
    assert "a long intermediate result" not in str(final_request["messages"])
    assert_history_invariant(engine.messages)
