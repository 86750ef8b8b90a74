"""Through the real SDK: a tool_use block starts its tool at content_block_stop."""

from __future__ import annotations

import time

from nb_agent.engine import EngineResult, QueryEngine
from nb_agent.model.transport import AnthropicTransport
from nb_agent.testing import FakeAnthropicServer, Reply, text, tool_use
from nb_agent.testing.collect import assert_tool_result_invariant
from nb_agent.testing.tools import RecordingTool


async def test_tool_starts_before_the_response_ends(config):
    echo = RecordingTool("Echo")
    slow_text = "x" * 480  # 30 deltas of 16 characters, 20 ms apart: ~0.7 s after the tool_use
    turns = [
        Reply(content=[tool_use("Echo", {"value": "early"}), text(slow_text)], delay=0.02),
        Reply(content=[text("done")]),
    ]
    async with FakeAnthropicServer(turns) as server:
        engine = QueryEngine(config=config, tools=[echo], transport=AnthropicTransport(client=server.client()))
        stream_ended: float | None = None
        result = None
        async for event in engine.submit_message("go"):
            if isinstance(event, EngineResult):
                result = event
            elif event.type == "stream_event" and event.event.type == "message_stop" and stream_ended is None:
                stream_ended = time.monotonic()
        assert result is not None and result.subtype == "success", result
        assert stream_ended is not None
        [call] = echo.calls
        assert call.ended is not None
        # The tool ran (and finished) while the rest of the response was still streaming.
        assert call.started < stream_ended - 0.4
        assert call.ended < stream_ended
        assert_tool_result_invariant(server.requests[1]["messages"])
