"""Retries through the real SDK over HTTP (FakeAnthropicServer): a connection dropped or an
error event mid-stream, then a clean retry."""

from __future__ import annotations

import pytest

from nb_agent.engine import EngineConfig, QueryEngine
from nb_agent.model.retry import RetryPolicy
from nb_agent.model.transport import AnthropicTransport
from nb_agent.testing import FakeAnthropicServer, Reply, overloaded_error, text, tool_use
from nb_agent.testing.collect import assert_history_invariant, assert_tool_result_invariant, collect
from nb_agent.testing.retry import RetryRecorder
from nb_agent.testing.tools import RecordingTool


@pytest.mark.parametrize(
    "fault",
    [dict(drop_after_events=9), dict(error_after_events=9, error_type="api_error"), dict(error_after_events=9, error_type="overloaded_error")],
    ids=["connection-dropped", "error-event", "overloaded-event"],
)
async def test_mid_stream_fault_then_success(config: EngineConfig, fault):
    echo = RecordingTool("Echo")
    first = Reply(content=[text("Checking."), tool_use("Echo", {"value": "a"}, id="t_lost"), text("z" * 300)], **fault)
    turns = [first, overloaded_error(), Reply(content=[tool_use("Echo", {"value": "b"}, id="t_kept")]), Reply(content=[text("done")])]
    recorder = RetryRecorder()
    config.options.retry_policy = RetryPolicy(sleep=recorder, random=lambda: 0.0)
    async with FakeAnthropicServer(turns) as server:
        engine = QueryEngine(config=config, tools=[echo], transport=AnthropicTransport(client=server.client()))
        out = await collect(engine, "go")
        assert out.result.subtype == "success" and out.result.text == "done", out.result
        assert len(server.requests) == 4
        assert server.requests[1]["messages"] == server.requests[0]["messages"] == server.requests[2]["messages"]
        assert recorder.delays == [0.5, 1.0]
        assert out.of_type("tombstone"), "the failed attempt's blocks were withdrawn"
        for request in server.requests:
            assert_tool_result_invariant(request["messages"])
        assert "t_lost" not in str(server.requests[3]["messages"])
        assert_history_invariant(engine.messages)
