"""How much of a response's streaming time the streaming tool executor hides.

One model response streams four tool calls over ~2 s (``Reply(stream_duration=2.0)``,
through the real SDK over ``FakeAnthropicServer``); every tool sleeps 1 s. The next
(text) response is immediate. Measured from the submission:

- ``tools done``: when the last tool_result arrives;
- the *physical limit*: what a perfect executor could do given when each tool_use block
  finished streaming (its ``content_block_stop``, as seen by the client) — for
  concurrency-safe tools ``max(stop_i) + 1 s``; for unsafe (serial) tools each starts at
  ``max(stop_i, end of the previous)``;
- the gap between the two (target: within 0.2 s of the limit with streaming execution).

Each scenario runs with the streaming executor and with ``streaming_tool_execution=False``
(tools start after the response ends, via the batch runner). Besides the brief's
scenario (four concurrency-safe tools), a serial one (four unsafe tools) shows where
streaming execution pays most.

    python bench/streaming_overlap.py [--reps 3]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from nb_agent.engine import EngineConfig, EngineOptions, EngineResult, QueryEngine
from nb_agent.model.retry import NO_RETRIES
from nb_agent.model.transport import AnthropicTransport
from nb_agent.testing import FakeAnthropicServer, Reply, text, tool_use
from nb_agent.testing.tools import RecordingTool

MODEL = "claude-sonnet-4-6"
TOOL_SECONDS = 1.0
STREAM_SECONDS = 2.0


@dataclass
class Timing:
    tools_done: float
    stream_end: float
    limit: float
    total: float


def physical_limit(stops: list[float], *, serial: bool) -> float:
    if not serial:
        return max(stops) + TOOL_SECONDS
    end = 0.0
    for stop in stops:
        end = max(stop, end) + TOOL_SECONDS
    return end


async def run(*, streaming: bool, serial: bool, workdir: Path) -> Timing:
    calls = [tool_use("Work", {"value": f"part {i}", "sleep": TOOL_SECONDS}) for i in range(4)]
    turns = [
        Reply(content=[text("I will work on the four parts."), *calls], stream_duration=STREAM_SECONDS, model=MODEL),
        Reply(content=[text("All four parts are done.")], model=MODEL),
    ]
    async with FakeAnthropicServer(turns) as server:
        engine = QueryEngine(
            config=EngineConfig(cwd=workdir, model=MODEL, streaming_tool_execution=streaming, options=EngineOptions(retry_policy=NO_RETRIES)),
            tools=[RecordingTool("Work", concurrency_safe=not serial)],
            transport=AnthropicTransport(client=server.client()),
        )
        started = time.perf_counter()
        stops: list[float] = []
        stream_end = tools_done = 0.0
        result = None
        async for event in engine.submit_message("Do the four parts."):
            now = time.perf_counter() - started
            if isinstance(event, EngineResult):
                result = event
            elif event.type == "assistant" and event.tool_uses:
                stops.append(now)
            elif event.type == "stream_event" and event.event.type == "message_stop" and not stream_end:
                stream_end = now
            elif event.type == "user" and event.tool_result_ids:
                tools_done = now
        total = time.perf_counter() - started
        engine.close()
    assert result is not None and result.subtype == "success", result
    return Timing(tools_done=tools_done, stream_end=stream_end, limit=physical_limit(stops, serial=serial), total=total)


async def main(reps: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        await run(streaming=True, serial=False, workdir=workdir)  # warm-up
        for serial in (False, True):
            kind = "4 unsafe tools (serial)" if serial else "4 concurrency-safe tools"
            print(f"{kind}, each {TOOL_SECONDS:g} s, streamed over {STREAM_SECONDS:g} s:")
            for streaming in (True, False):
                timings = [await run(streaming=streaming, serial=serial, workdir=workdir) for _ in range(reps)]
                done = statistics.median(t.tools_done for t in timings)
                limit = statistics.median(t.limit for t in timings)
                end = statistics.median(t.stream_end for t in timings)
                total = statistics.median(t.total for t in timings)
                label = "streaming executor" if streaming else "after the stream  "
                print(
                    f"  {label}: tools done {done:.3f} s, physical limit {limit:.3f} s, gap {done - limit:+.3f} s "
                    f"(stream ended {end:.3f} s, end-to-end {total:.3f} s)"
                )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=3)
    asyncio.run(main(parser.parse_args().reps))
