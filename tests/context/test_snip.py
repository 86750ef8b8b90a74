"""History snip (seed 002 §8.1): off by default; when on, it cuts only before a user
prompt, keeps a leading compact boundary, and moves its cut in steps (cache-friendly)."""

from __future__ import annotations

from nb_agent.context.snip import snip_history
from nb_agent.messages import AssistantMessage, CompactBoundaryMessage, UserMessage, tool_result_message


def _exchange(i: int) -> list:
    use = {"type": "tool_use", "id": f"t{i}", "name": "Bash", "input": {}}
    return [
        UserMessage(content=f"prompt {i}"),
        AssistantMessage(content=[use], message_id=f"m{i}", model="m"),
        tool_result_message(f"t{i}", "out"),
        AssistantMessage(content=[{"type": "text", "text": "ok"}], message_id=f"n{i}", model="m"),
    ]


def test_off_or_under_the_cap_changes_nothing():
    messages = [m for i in range(5) for m in _exchange(i)]
    assert snip_history(messages, None) is messages
    assert snip_history(messages, 20) is messages


def test_cuts_before_a_prompt_and_keeps_the_boundary():
    boundary = CompactBoundaryMessage(summary="s")
    messages = [boundary, *[m for i in range(10) for m in _exchange(i)]]
    out = snip_history(messages, 20)
    assert out[0] is boundary and out[1].type == "user" and out[1].content.startswith("prompt")
    assert len(out) <= 20 + 1
    ids = {b["id"] for m in out if m.type == "assistant" for b in m.tool_uses}
    results = {i for m in out if m.type == "user" for i in m.tool_result_ids}
    assert ids == results


def test_the_cut_is_stable_while_the_history_grows_by_a_little():
    messages = [m for i in range(12) for m in _exchange(i)]
    first = snip_history(messages, 20)
    grown = snip_history([*messages, UserMessage(content="one more")], 20)
    assert grown[0] is first[0]
