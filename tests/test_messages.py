"""Message kinds: JSON round-trip for every kind, and normalization to the Messages API."""

from __future__ import annotations

import json

import pydantic
import pytest

from nb_agent.messages import (
    MESSAGE_ADAPTER,
    AssistantMessage,
    AttachmentMessage,
    CompactBoundaryMessage,
    ProgressMessage,
    SystemMessage,
    TombstoneMessage,
    ToolUseSummaryMessage,
    UserMessage,
    api_error_message,
    error_tool_result,
    normalize_for_api,
    tool_result_message,
)

EVERY_KIND = [
    UserMessage(content="hello"),
    UserMessage(content=[{"type": "text", "text": "hi"}], is_meta=True),
    tool_result_message("toolu_1", "out", is_error=True, tool_use_result={"k": [1, 2]}),
    AssistantMessage(content=[{"type": "text", "text": "answer"}], message_id="msg_1", model="m", request_id="req_1"),
    AssistantMessage(content=[{"type": "tool_use", "id": "toolu_1", "name": "Echo", "input": {"value": "x"}}], message_id="msg_1", model="m"),
    api_error_message("API Error: 500", model="m"),
    SystemMessage(level="warning", content="careful", subtype="hook"),
    ProgressMessage(tool_use_id="toolu_1", data={"step": 1}),
    AttachmentMessage(kind="hook_additional_context", content="more context"),
    CompactBoundaryMessage(summary="so far", trigger="reactive", pre_tokens=123),
    TombstoneMessage(target_uuid="abc"),
    ToolUseSummaryMessage(summary="Read 3 files", preceding_tool_use_ids=["toolu_1", "toolu_2"]),
]


@pytest.mark.parametrize("message", EVERY_KIND, ids=lambda m: f"{m.type}")
def test_every_kind_round_trips_through_json(message):
    dumped = MESSAGE_ADAPTER.dump_python(message, mode="json")
    line = json.dumps(dumped)
    back = MESSAGE_ADAPTER.validate_python(json.loads(line))
    assert type(back) is type(message)
    assert back == message


def test_the_discriminator_picks_the_kind():
    back = MESSAGE_ADAPTER.validate_python({"type": "system", "level": "info", "content": "x"})
    assert isinstance(back, SystemMessage)
    with pytest.raises(pydantic.ValidationError):
        MESSAGE_ADAPTER.validate_python({"type": "nonsense", "content": "x"})


def _assistant(block, message_id="msg_1"):
    return AssistantMessage(content=[block], message_id=message_id, model="m")


def test_blocks_of_one_response_merge_into_one_assistant_message():
    messages = [
        UserMessage(content="go"),
        _assistant({"type": "text", "text": "a"}),
        _assistant({"type": "tool_use", "id": "t1", "name": "Echo", "input": {}}),
        _assistant({"type": "tool_use", "id": "t2", "name": "Echo", "input": {}}),
        tool_result_message("t1", "r1"),
        tool_result_message("t2", "r2"),
    ]
    api = normalize_for_api(messages)
    assert [m["role"] for m in api] == ["user", "assistant", "user"]
    assert [b["type"] for b in api[1]["content"]] == ["text", "tool_use", "tool_use"]
    assert [b["tool_use_id"] for b in api[2]["content"]] == ["t1", "t2"]
    assert all("_id" not in m for m in api)


def test_tool_results_come_first_in_a_user_turn():
    messages = [
        UserMessage(content="go"),
        _assistant({"type": "tool_use", "id": "t1", "name": "Echo", "input": {}}),
        AttachmentMessage(kind="hook_additional_context", content="ctx"),
        tool_result_message("t1", "r1"),
        UserMessage(content="and another thing"),
    ]
    api = normalize_for_api(messages)
    last = api[-1]
    assert last["role"] == "user"
    assert last["content"][0]["type"] == "tool_result"
    assert "<system-reminder>" in last["content"][1]["text"]
    assert last["content"][2] == {"type": "text", "text": "and another thing"}


def test_ui_only_kinds_are_dropped():
    messages = [
        UserMessage(content="go"),
        SystemMessage(level="info", content="shown to the user only"),
        ProgressMessage(tool_use_id="t", data={}),
        TombstoneMessage(target_uuid="x"),
        ToolUseSummaryMessage(summary="s", preceding_tool_use_ids=[]),
        api_error_message("API Error: 529 Overloaded", model="m"),
        _assistant({"type": "text", "text": "hi"}),
    ]
    api = normalize_for_api(messages)
    assert api == [
        {"role": "user", "content": [{"type": "text", "text": "go"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "hi"}]},
    ]


def test_trailing_thinking_is_stripped_but_a_lone_thinking_block_is_kept():
    thought = {"type": "thinking", "thinking": "hmm", "signature": "sig"}
    api = normalize_for_api(
        [UserMessage(content="go"), _assistant(thought), _assistant({"type": "text", "text": "a"}), _assistant(dict(thought))]
    )
    assert [b["type"] for b in api[1]["content"]] == ["thinking", "text"]
    lone = normalize_for_api([UserMessage(content="go"), _assistant(thought, "msg_2")])
    assert [b["type"] for b in lone[1]["content"]] == ["thinking"]


def test_orphan_tool_results_are_dropped():
    # The tool_use was cut away by compaction: its result alone would be rejected.
    messages = [
        CompactBoundaryMessage(summary="earlier work"),
        tool_result_message("gone", "old result"),
        UserMessage(content="next"),
    ]
    api = normalize_for_api(messages)
    assert len(api) == 1
    assert all(b.get("type") != "tool_result" for b in api[0]["content"])
    assert api[0]["content"][-1] == {"type": "text", "text": "next"}


def test_a_user_turn_with_only_orphans_keeps_a_placeholder():
    api = normalize_for_api([error_tool_result("gone", "x")])
    assert api == [{"role": "user", "content": [{"type": "text", "text": "(no content)"}]}]


def test_normalize_does_not_mutate_the_history():
    block = {"type": "tool_use", "id": "t1", "name": "Echo", "input": {}}
    messages = [UserMessage(content="go"), _assistant({"type": "text", "text": "a"}), _assistant(block), tool_result_message("t1", "r")]
    before = [MESSAGE_ADAPTER.dump_python(m, mode="json") for m in messages]
    normalize_for_api(messages)
    normalize_for_api(messages)
    assert [MESSAGE_ADAPTER.dump_python(m, mode="json") for m in messages] == before


def test_blocks_are_rejoined_across_results_that_arrived_while_streaming():
    # Streaming execution: the result of the first tool arrives before the response ends.
    messages = [
        UserMessage(content="go"),
        _assistant({"type": "text", "text": "first"}),
        _assistant({"type": "tool_use", "id": "t1", "name": "Echo", "input": {}}),
        tool_result_message("t1", "r1"),
        AttachmentMessage(kind="hook_additional_context", content="hook says hi"),
        _assistant({"type": "text", "text": "and"}),
        _assistant({"type": "tool_use", "id": "t2", "name": "Echo", "input": {}}),
        tool_result_message("t2", "r2"),
        _assistant({"type": "text", "text": "next response"}, message_id="msg_2"),
    ]
    api = normalize_for_api(messages)
    assert [m["role"] for m in api] == ["user", "assistant", "user", "assistant"]
    assert [b.get("text") or b.get("id") for b in api[1]["content"]] == ["first", "t1", "and", "t2"]
    assert [b.get("tool_use_id") for b in api[2]["content"]] == ["t1", "t2", None]
    assert api[3]["content"] == [{"type": "text", "text": "next response"}]


def test_blocks_of_different_responses_are_not_joined_across_a_user_turn():
    messages = [
        UserMessage(content="go"),
        _assistant({"type": "text", "text": "one"}, message_id="msg_1"),
        UserMessage(content="more"),
        _assistant({"type": "text", "text": "two"}, message_id="msg_2"),
    ]
    assert [m["role"] for m in normalize_for_api(messages)] == ["user", "assistant", "user", "assistant"]
