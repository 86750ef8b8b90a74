"""The per-call pipeline: lookup, aliases, schema and input validation."""

from __future__ import annotations

import json

from anthropic.types import RawMessageStreamEvent
from pydantic import TypeAdapter

from nb_agent.engine import EngineConfig, QueryEngine
from nb_agent.loop.pipeline import ToolRunDeps, run_tool_use
from nb_agent.model.client import MALFORMED_INPUT_KEY, ResponseAccumulator
from nb_agent.testing import Reply, reply_events, text, tool_use
from nb_agent.testing.collect import assert_tool_result_invariant, collect
from nb_agent.testing.harness import tool_context
from nb_agent.testing.tools import RecordingInput, RecordingTool
from nb_agent.tools.base import ValidationResult

EVENTS: TypeAdapter[RawMessageStreamEvent] = TypeAdapter(RawMessageStreamEvent)


async def _run(tools, block):
    updates = [u async for u in run_tool_use(block, tool_context(tools), ToolRunDeps())]
    results = [u for u in updates if u.message.type == "user"]
    assert len(results) == 1, "exactly one tool_result per call"
    return results[0]


def _text(update) -> str:
    return update.message.content[0]["content"]


async def test_unknown_tool():
    result = await _run([RecordingTool("Echo")], tool_use("Ecoh", {}))
    assert result.is_error
    assert _text(result) == "<tool_use_error>Error: No such tool available: Ecoh</tool_use_error>"


async def test_aliases_find_the_tool():
    class Renamed(RecordingTool):
        aliases = ("OldEcho",)

    tool = Renamed("Echo")
    result = await _run([tool], tool_use("OldEcho", {"value": "hi"}))
    assert not result.is_error and _text(result) == "Echo: hi"


async def test_wrong_types_are_an_input_validation_error():
    tool = RecordingTool("Echo")
    result = await _run([tool], tool_use("Echo", {"value": "x", "sleep": "not a number"}))
    assert result.is_error
    text = _text(result)
    assert text.startswith("<tool_use_error>InputValidationError: Echo failed")
    assert "sleep" in text
    assert tool.calls == []


async def test_non_object_input_is_an_input_validation_error():
    tool = RecordingTool("Echo")
    block = {"type": "tool_use", "id": "toolu_x", "name": "Echo", "input": ["not", "an", "object"]}
    result = await _run([tool], block)
    assert "InputValidationError: Echo expects a JSON object as input, got list" in _text(result)
    assert tool.calls == []


async def test_malformed_streamed_json_is_reported_not_run():
    tool = RecordingTool("Echo")
    block = {"type": "tool_use", "id": "toolu_x", "name": "Echo", "input": {MALFORMED_INPUT_KEY: '{"value": "x'}}
    result = await _run([tool], block)
    assert result.is_error
    assert "InputValidationError" in _text(result)
    assert '{"value": "x' in _text(result)
    assert tool.calls == []


def test_accumulator_marks_unparseable_tool_input():
    events = reply_events(Reply(content=[tool_use("Echo", {"value": "x"}, id="toolu_1")]), message_id="msg_1")
    for event in events:
        if event["type"] == "content_block_delta" and event["delta"]["partial_json"]:
            event["delta"]["partial_json"] = event["delta"]["partial_json"][:-1]  # cut the closing brace
    acc = ResponseAccumulator(model="m")
    messages = [m for m in (acc.on_event(EVENTS.validate_python(e)) for e in events) if m is not None]
    [block] = messages[0].content
    assert block["input"] == {MALFORMED_INPUT_KEY: '{"value": "x"'}


class _RawTransport:
    """Plays raw event lists (so a test can break the JSON the model streams)."""

    def __init__(self, *event_lists):
        self.event_lists = list(event_lists)
        self.requests = []

    async def stream(self, request):
        self.requests.append(json.loads(json.dumps(request, default=str)))
        for event in self.event_lists.pop(0):
            yield EVENTS.validate_python(event)


async def test_malformed_streamed_json_through_the_engine(tmp_path):
    broken = reply_events(Reply(content=[tool_use("Echo", {"value": "x"}, id="toolu_1")]), message_id="msg_1")
    for event in broken:
        if event["type"] == "content_block_delta" and event["delta"]["partial_json"]:
            event["delta"]["partial_json"] = event["delta"]["partial_json"].replace('"x"', "x")
    transport = _RawTransport(broken, reply_events(Reply(content=[text("sorry")]), message_id="msg_2"))
    tool = RecordingTool("Echo")
    engine = QueryEngine(config=EngineConfig(cwd=tmp_path), tools=[tool], transport=transport)
    out = await collect(engine, "go")
    assert out.result.subtype == "success"
    assert tool.calls == []
    [result] = out.tool_results
    assert result["is_error"] and "InputValidationError" in result["content"]
    assert_tool_result_invariant(transport.requests[1]["messages"])


async def test_validate_input_failure_is_an_error_result():
    class Picky(RecordingTool):
        async def validate_input(self, input: RecordingInput, ctx):
            if input.value == "bad":
                return ValidationResult.failed("value must not be 'bad'")
            return ValidationResult.passed()

    tool = Picky("Echo")
    result = await _run([tool], tool_use("Echo", {"value": "bad"}))
    assert result.is_error and "value must not be 'bad'" in _text(result)
    assert tool.calls == []
    ok = await _run([tool], tool_use("Echo", {"value": "good"}))
    assert _text(ok) == "Echo: good"
