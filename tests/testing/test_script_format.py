"""The script format: turns, helpers, and the raw events a Reply renders to."""

from __future__ import annotations

import json

import pytest

from nb_agent.testing import (
    ErrorReply,
    Reply,
    Script,
    ScriptExhaustedError,
    prompt_too_long_error,
    rate_limit_error,
    reply_events,
    reply_message,
    text,
    thinking,
    tool_use,
)
from nb_agent.testing.script import plan_stream


def test_stop_reason_defaults_follow_the_content() -> None:
    assert Reply(content=[text("hi")]).resolved_stop_reason == "end_turn"
    assert Reply(content=[text("hi"), tool_use("Bash", {})]).resolved_stop_reason == "tool_use"
    assert Reply(content=[text("hi")], stop_reason="max_tokens").resolved_stop_reason == "max_tokens"


def test_output_tokens_are_estimated_unless_given() -> None:
    assert Reply(content=[text("x" * 400)]).usage["output_tokens"] == 100
    assert Reply(content=[text("")]).usage["output_tokens"] == 1
    assert Reply(content=[text("x")], output_tokens=7).usage["output_tokens"] == 7


def test_tool_use_ids_are_unique_and_api_shaped() -> None:
    ids = {tool_use("Bash", {})["id"] for _ in range(100)}
    assert len(ids) == 100
    assert all(i.startswith("toolu_01") for i in ids)
    assert tool_use("Bash", {}, id="toolu_fixed")["id"] == "toolu_fixed"


def test_reply_events_match_the_wire_sequence() -> None:
    reply = Reply(content=[text("abcdef")], chunk_size=4, input_tokens=12, output_tokens=3)
    assert reply_events(reply, message_id="msg_1") == [
        {
            "type": "message_start",
            "message": {
                "id": "msg_1",
                "type": "message",
                "role": "assistant",
                "model": "claude-sonnet-4-6",
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {
                    "input_tokens": 12,
                    "cache_creation_input_tokens": 0,
                    "cache_read_input_tokens": 0,
                    "output_tokens": 1,
                },
            },
        },
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "abcd"}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "ef"}},
        {"type": "content_block_stop", "index": 0},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn", "stop_sequence": None},
            "usage": {"output_tokens": 3},
        },
        {"type": "message_stop"},
    ]


def test_tool_input_is_streamed_as_partial_json_after_an_empty_delta() -> None:
    block = tool_use("Read", {"file_path": "/tmp/some/long/path.txt"})
    events = reply_events(Reply(content=[block], chunk_size=8), message_id="m")
    start = events[1]
    assert start["content_block"] == {**block, "input": {}}
    partials = [e["delta"]["partial_json"] for e in events if e["type"] == "content_block_delta"]
    assert partials[0] == ""
    assert all(len(p) <= 8 for p in partials)
    assert json.loads("".join(partials)) == block["input"]


def test_thinking_streams_text_then_signature() -> None:
    events = reply_events(Reply(content=[thinking("ponder", signature="s1")], chunk_size=4), message_id="m")
    assert events[1]["content_block"] == {"type": "thinking", "thinking": "", "signature": ""}
    deltas = [e["delta"] for e in events if e["type"] == "content_block_delta"]
    assert deltas == [
        {"type": "thinking_delta", "thinking": "pond"},
        {"type": "thinking_delta", "thinking": "er"},
        {"type": "signature_delta", "signature": "s1"},
    ]


def test_other_blocks_are_sent_whole_in_their_start_event() -> None:
    block = {"type": "redacted_thinking", "data": "opaque"}
    events = reply_events(Reply(content=[block]), message_id="m")
    assert [e["type"] for e in events[1:3]] == ["content_block_start", "content_block_stop"]
    assert events[1]["content_block"] == block


def test_reply_message_is_the_non_streaming_body() -> None:
    reply = Reply(content=[text("hi")], input_tokens=5, output_tokens=2, cache_read_input_tokens=3)
    body = reply_message(reply, message_id="msg_1")
    assert body["content"] == [{"type": "text", "text": "hi"}]
    assert body["stop_reason"] == "end_turn"
    assert body["usage"] == {
        "input_tokens": 5,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 3,
        "output_tokens": 2,
    }


def test_malformed_content_is_rejected_early() -> None:
    with pytest.raises(ValueError, match="'type'"):
        Reply(content=["hi"])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="id, name and input"):
        Reply(content=[{"type": "tool_use", "name": "Bash"}])


def test_stream_plan_applies_faults_and_timing() -> None:
    count = len(reply_events(Reply(content=[text("x")]), message_id="m"))  # 7
    plain = plan_stream(Reply(content=[text("x")]), message_id="m")
    assert (len(plain.events), plain.fault, plain.gap, plain.duration) == (count, None, 0.0, 0.0)
    error = plan_stream(Reply(content=[text("x")], error_after_events=3), message_id="m")
    assert (len(error.events), error.fault) == (3, "error")
    late = plan_stream(Reply(content=[text("x")], drop_after_events=99), message_id="m")
    assert (len(late.events), late.fault) == (count, "drop")
    both = plan_stream(Reply(content=[text("x")], error_after_events=4, drop_after_events=2), message_id="m")
    assert (len(both.events), both.fault) == (2, "drop")
    assert plan_stream(Reply(content=[text("x")], drop_after_events=0), message_id="m").drops_before_response
    timed = plan_stream(Reply(content=[text("x")], delay=0.1, stream_duration=0.6), message_id="m")
    assert timed.gap == pytest.approx(0.6 / (count - 1))
    assert timed.duration == pytest.approx(0.6)


def test_error_reply_helpers() -> None:
    assert rate_limit_error(retry_after=2).headers == {"retry-after": "2"}
    too_long = prompt_too_long_error()
    assert (too_long.status, too_long.error_type) == (400, "invalid_request_error")
    assert too_long.body()["error"]["message"] == "prompt is too long: 210000 tokens > 200000 maximum"
    assert ErrorReply(status=529, error_type="overloaded_error").body() == {
        "type": "error",
        "error": {"type": "overloaded_error", "message": "Overloaded"},
    }


def test_script_consumes_turns_in_order_and_records_deep_copies() -> None:
    first, second = Reply(content=[text("1")]), Reply(content=[text("2")])
    script = Script([first, second])
    request = {"messages": [{"role": "user", "content": "hi"}]}
    assert script.next_turn(request) is first
    request["messages"].append({"role": "user", "content": "mutated"})
    assert script.next_turn(request) is second
    assert [len(r["messages"]) for r in script.requests] == [1, 2]
    script.assert_exhausted()


def test_function_turns_receive_the_request() -> None:
    def echo(request: dict) -> Reply:
        return Reply(content=[text(request["messages"][-1]["content"])])

    script = Script([echo])
    turn = script.next_turn({"messages": [{"role": "user", "content": "ping"}]})
    assert isinstance(turn, Reply) and turn.content == [text("ping")]


def test_function_turn_must_return_a_turn() -> None:
    script = Script([lambda request: "oops"])
    with pytest.raises(TypeError, match="Reply or ErrorReply"):
        script.next_turn({})


def test_exhaustion_is_a_clear_assertion_error() -> None:
    script = Script([Reply(content=[text("only")])])
    script.next_turn({})
    with pytest.raises(ScriptExhaustedError, match="called 2 times but the script has only 1 turns") as info:
        script.next_turn({"messages": [{"role": "user", "content": "again?"}]})
    assert isinstance(info.value, AssertionError)
    assert "again?" in str(info.value)
    assert len(script.requests) == 2


def test_assert_exhausted_reports_unused_turns() -> None:
    script = Script([Reply(content=[text("a")])])
    script.add(Reply(content=[text("b")]))
    script.next_turn({})
    assert script.remaining == 1
    with pytest.raises(AssertionError, match="1 of 2 scripted turns were never used"):
        script.assert_exhausted()
