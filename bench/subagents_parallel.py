"""Three Explore subagents in one response vs one agent doing the same reads in sequence.

Usage: python bench/subagents_parallel.py

Each Explore subagent makes two 1-second read-only tool calls (one per turn, as an agent
that reads one file, then the next) and reports a short finding; the baseline is one agent
making the same six calls itself, one per turn. Both run through the real SDK over
``FakeAnthropicServer`` (real HTTP), with every model response taking LATENCY seconds to
stream (printed for 0 s and 0.2 s). Printed: wall time of each, their ratio (target
<= 0.45), and the size of the parent's context after the work: the last request the parent
sends, in characters and estimated tokens (4 characters a token), with subagents vs with the
reads in its own context (each read returns a file of READ_CHARS characters).
"""

from __future__ import annotations

import asyncio
import json
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel

from nb_agent.agent import create_engine
from nb_agent.engine import EngineConfig, EngineOptions, EngineResult
from nb_agent.model.retry import NO_RETRIES
from nb_agent.model.transport import AnthropicTransport
from nb_agent.testing import FakeAnthropicServer, Reply, text, tool_use
from nb_agent.testing.routing import RoutedScript
from nb_agent.tools.base import ProgressCallback, Tool, ToolResult, ToolUseContext

TOOL_SECONDS = 1.0
READ_CHARS = 8_000
MODEL = "claude-sonnet-4-6"
AREAS = ("sales", "customers", "notes")


class SlowReadInput(BaseModel):
    file: str


class SlowRead(Tool[SlowReadInput]):
    """A read-only, concurrency-safe read that takes one second and returns a file's worth of text."""

    name = "SlowRead"
    input_model: ClassVar[type[BaseModel]] = SlowReadInput

    def prompt(self) -> str:
        return "Read a file slowly."

    def is_read_only(self, input: SlowReadInput) -> bool:
        return True

    def is_concurrency_safe(self, input: SlowReadInput) -> bool:
        return True

    async def call(self, input: SlowReadInput, ctx: ToolUseContext, on_progress: ProgressCallback) -> ToolResult:
        await asyncio.sleep(TOOL_SECONDS)
        line = f"{input.file}: 2025-01-01,north,41,635.50\n"
        return ToolResult(data=(line * (READ_CHARS // len(line) + 1))[:READ_CHARS])


def read(area: str, n: int) -> dict[str, Any]:
    return tool_use("SlowRead", {"file": f"{area}/part{n}.csv"})


def finding(area: str) -> str:
    return f"{area}: 2 files, 400 rows, dates 2025-01-01 to 2025-01-10, nothing missing."


def parallel_routes(latency: float) -> dict[str, list[Reply]]:
    calls = [
        tool_use("Agent", {"description": f"explore {a}", "prompt": f"[{a}] Read {a}/part1.csv and {a}/part2.csv and summarize.", "subagent_type": "Explore"})
        for a in AREAS
    ]
    routes = {"": [Reply(content=calls, stream_duration=latency), Reply(content=[text("Combined: " + " ".join(finding(a) for a in AREAS))], stream_duration=latency)]}
    for a in AREAS:
        routes[f"[{a}]"] = [
            Reply(content=[read(a, 1)], stream_duration=latency),
            Reply(content=[read(a, 2)], stream_duration=latency),
            Reply(content=[text(finding(a))], stream_duration=latency),
        ]
    return routes


def sequential_routes(latency: float) -> dict[str, list[Reply]]:
    turns = [Reply(content=[read(a, n)], stream_duration=latency) for a in AREAS for n in (1, 2)]
    turns.append(Reply(content=[text("Combined: " + " ".join(finding(a) for a in AREAS))], stream_duration=latency))
    return {"": turns}


@dataclass(frozen=True)
class Outcome:
    seconds: float
    parent_request_chars: int


async def run(routes: dict[str, list[Reply]], workdir: Path) -> Outcome:
    script = RoutedScript(routes)
    async with FakeAnthropicServer(script) as server:
        engine, _ = create_engine(
            config=EngineConfig(cwd=workdir, model=MODEL, options=EngineOptions(retry_policy=NO_RETRIES)),
            tools=[SlowRead()],
            transport=AnthropicTransport(client=server.client()),
            mcp=False,
            home=workdir,
        )
        started = time.perf_counter()
        result = None
        async for event in engine.submit_message("Summarize the three data areas."):
            if isinstance(event, EngineResult):
                result = event
        seconds = time.perf_counter() - started
        engine.close()
    assert result is not None and result.subtype == "success", result
    script.assert_exhausted()
    last_parent = script.requests_by_route[""][-1]
    return Outcome(seconds=seconds, parent_request_chars=len(json.dumps(last_parent["messages"])))


async def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        await run(sequential_routes(0.0), workdir)  # warm-up: imports, first connection
        for latency in (0.0, 0.2):
            parallel = await run(parallel_routes(latency), workdir)
            sequential = await run(sequential_routes(latency), workdir)
            print(f"model latency {latency:.1f} s per response")
            print(f"  3 Explore subagents x 2 calls (parallel): {parallel.seconds:6.2f} s")
            print(f"  1 agent, 6 calls in sequence:             {sequential.seconds:6.2f} s")
            print(f"  ratio:                                    {parallel.seconds / sequential.seconds:6.2f}x  (target <= 0.45x)")
            print(
                f"  parent's last request: {parallel.parent_request_chars:,} chars (~{parallel.parent_request_chars // 4:,} tokens) with subagents, "
                f"{sequential.parent_request_chars:,} chars (~{sequential.parent_request_chars // 4:,} tokens) reading itself "
                f"({parallel.parent_request_chars / sequential.parent_request_chars:.2f}x)"
            )


if __name__ == "__main__":
    asyncio.run(main())
