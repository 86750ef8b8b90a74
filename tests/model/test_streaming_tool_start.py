"""Through the real SDK: a tool_use block starts its tool at content_block_stop."""

from __future__ import annotations

import asyncio

from nb_agent.engine import EngineResult, QueryEngine
from nb_agent.model.transport import AnthropicTransport
from nb_agent.testing import FakeAnthropicServer, Reply, held_at_end, text, tool_use
from nb_agent.testing.collect import assert_tool_result_invariant
from nb_agent.testing.tools import RecordingTool
from nb_agent.testing.waiting import eventually

HANG_S = 60
"""Only a hang detector: every wait below ends at the event it waits for."""


async def test_tool_starts_before_the_response_ends(config):
    echo = RecordingTool("Echo")
    # held before the text block's end: the response cannot end until the test lets it
    first = held_at_end(Reply(content=[tool_use("Echo", {"value": "early"}), text("x" * 480)]))
    async with FakeAnthropicServer([first, Reply(content=[text("done")])]) as server:
        engine = QueryEngine(config=config, tools=[echo], transport=AnthropicTransport(client=server.client()))
        seen: list[str] = []

        async def consume() -> EngineResult | None:
            result = None
            async for event in engine.submit_message("go"):
                if isinstance(event, EngineResult):
                    result = event
                elif event.type == "stream_event":
                    seen.append(event.event.type)
            return result

        run = asyncio.ensure_future(consume())
        try:
            await eventually(lambda: run.done() or bool(echo.calls and echo.calls[0].ended is not None), "the tool finished", within=HANG_S)
            assert not run.done(), run.result()
            # The tool ran (and finished) while the rest of the response was still streaming.
            assert "message_stop" not in seen and "content_block_delta" in seen
        finally:
            first.release.set()
        result = await asyncio.wait_for(run, HANG_S)
        assert result is not None and result.subtype == "success", result
        assert seen.count("message_stop") == 2
        assert_tool_result_invariant(server.requests[1]["messages"])
