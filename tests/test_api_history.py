"""``ApiHistory``: the loop's incremental normalization sends exactly what
``normalize_for_api`` would, turn after turn, whatever the history does."""

from __future__ import annotations

import json
import random

import pytest

from nb_agent.messages import (
    ApiHistory,
    AssistantMessage,
    AttachmentMessage,
    CompactBoundaryMessage,
    SystemMessage,
    UserMessage,
    meta_user_message,
    normalize_for_api,
    tool_result_message,
)


def _random_message(rng: random.Random, state: dict) -> object:
    """A message of any kind the window can hold, including the awkward ones: split
    responses interleaved with results, trailing thinking, API errors, orphans."""
    r = rng.random()
    if r < 0.35:
        state["mid"] += rng.random() < 0.6  # often a new response, sometimes a later block of the last
        kind = rng.choice(["text", "tool_use", "thinking"])
        if kind == "tool_use":
            block = {"type": "tool_use", "id": f"t{rng.randrange(30)}", "name": "X", "input": {}}
            state["uses"].append(block["id"])
        elif kind == "thinking":
            block = {"type": "thinking", "thinking": "hm", "signature": "s"}
        else:
            block = {"type": "text", "text": "hi"}
        return AssistantMessage(
            content=[block], message_id=f"m{state['mid']}", model="x", is_api_error_message=rng.random() < 0.05
        )
    if r < 0.65:
        uses = state["uses"]
        tool_use_id = rng.choice(uses) if uses and rng.random() < 0.9 else f"t{rng.randrange(30)}"
        return tool_result_message(tool_use_id, "out")
    return rng.choice(
        [
            lambda: UserMessage(content="prompt"),
            lambda: AttachmentMessage(kind="k", content="reminder"),
            lambda: SystemMessage(level="info", content="ui only"),
            lambda: CompactBoundaryMessage(summary="summary"),
            lambda: meta_user_message("meta"),
        ]
    )()


@pytest.mark.parametrize("seed", range(4))
def test_incremental_normalization_equals_the_full_one(seed: int):
    rng = random.Random(seed)
    for _ in range(300):
        state = {"mid": 0, "uses": []}
        history = ApiHistory()
        window: list = []
        sent: list[tuple[list, str]] = []
        for _ in range(rng.randrange(1, 40)):
            window = window + [_random_message(rng, state) for _ in range(rng.randrange(1, 4))]
            if rng.random() < 0.1:  # not an append: a message withdrawn or rewritten
                del window[rng.randrange(len(window))]
            got = history.normalize(window)
            expected = json.dumps(normalize_for_api(window))
            assert json.dumps(got) == expected
            sent.append((got, expected))
        # a later call never changes what an earlier request holds
        assert all(json.dumps(got) == expected for got, expected in sent)


def test_each_call_returns_a_new_list():
    history = ApiHistory()
    window = [
        UserMessage(content="go"),
        AssistantMessage(content=[{"type": "tool_use", "id": "t1", "name": "X", "input": {}}], message_id="m1", model="x"),
        tool_result_message("t1", "out"),
        AssistantMessage(content=[{"type": "text", "text": "done"}], message_id="m2", model="x"),
    ]
    first = history.normalize(window)
    first.append({"role": "user", "content": []})
    assert history.normalize(window) == normalize_for_api(window)
