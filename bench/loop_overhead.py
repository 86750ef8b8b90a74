"""The agent loop's per-turn overhead versus raw SDK streaming of the same responses.

What is measured: one submission of 200 model turns through the real ``anthropic`` SDK
(``AnthropicTransport`` over ``FakeAnthropicServer``, zero server delay). Turns 1–199 are
a short text block plus one tool_use of a trivial concurrency-safe tool; turn 200 is text
only. So every turn goes through the whole loop: request building and history
normalization, SSE accumulation into per-block messages, the streaming executor and the
per-call pipeline, the tool_result, the JSONL transcript, usage accounting.

The baseline replays the *exact request bodies the loop sent* (recorded by the server)
with ``client.messages.create(stream=True)`` and iterates every event, against a fresh
server playing the same replies. Both sides therefore pay the same HTTP, JSON and SSE
parsing costs for the same (growing) history; the difference is what nb_agent adds.
Turn-per-submission costs (building the engine, git status, the system prompt) are
included on the loop side and amortized over the 200 turns.

Both are run interleaved ``--rounds`` times; the median is reported, in wall time and in
the CPU time of the client thread (the event loop running the engine or the SDK; the
fake server's threads are not counted). Wall time is the target's measure; client CPU is
far less sensitive to other load on the machine.

    python bench/loop_overhead.py [--turns 200] [--rounds 5] [--profile]
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import pstats
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from nb_agent.engine import EngineConfig, EngineResult, QueryEngine
from nb_agent.model.transport import AnthropicTransport
from nb_agent.testing import FakeAnthropicServer, Reply, text, tool_use
from nb_agent.testing.tools import RecordingTool

MODEL = "claude-sonnet-4-6"


def script(turns: int) -> list[Reply]:
    replies = [
        Reply(content=[text(f"Step {i}: checking the next item."), tool_use("Noop", {"value": str(i)})], model=MODEL)
        for i in range(turns - 1)
    ]
    replies.append(Reply(content=[text("All items checked.")], model=MODEL))
    return replies


async def run_loop(turns: int, workdir: Path) -> tuple[float, float, list[dict[str, Any]]]:
    async with FakeAnthropicServer(script(turns)) as server:
        client = server.client()
        engine = QueryEngine(
            config=EngineConfig(cwd=workdir, model=MODEL),
            tools=[RecordingTool("Noop")],
            transport=AnthropicTransport(client=client),
        )
        gc.collect()  # both sides start from a clean heap, so a full collection left over from setup lands in neither
        started, cpu_started = time.perf_counter(), time.thread_time()
        result = None
        async for event in engine.submit_message("Check every item."):
            if isinstance(event, EngineResult):
                result = event
        elapsed, cpu = time.perf_counter() - started, time.thread_time() - cpu_started
        engine.close()
        assert result is not None and result.subtype == "success" and result.num_turns == turns, result
        return elapsed, cpu, list(server.requests)


async def run_raw(turns: int, bodies: list[dict[str, Any]]) -> tuple[float, float]:
    async with FakeAnthropicServer(script(turns)) as server:
        client = server.client()
        gc.collect()
        started, cpu_started = time.perf_counter(), time.thread_time()
        for body in bodies:
            request = {k: v for k, v in body.items() if k != "stream"}
            stream = await client.messages.create(**request, stream=True)
            async for _event in stream:
                pass
        return time.perf_counter() - started, time.thread_time() - cpu_started


async def main(turns: int, rounds: int, profile: bool) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        _, _, bodies = await run_loop(turns, workdir)  # warm-up (imports, first connections)
        await run_raw(turns, bodies)
        wall: dict[str, list[float]] = {"loop": [], "raw": []}
        cpu: dict[str, list[float]] = {"loop": [], "raw": []}
        for round_no in range(rounds):
            loop_s, loop_cpu, bodies = await run_loop(turns, workdir)
            raw_s, raw_cpu = await run_raw(turns, bodies)
            wall["loop"].append(loop_s)
            wall["raw"].append(raw_s)
            cpu["loop"].append(loop_cpu)
            cpu["raw"].append(raw_cpu)
            print(
                f"round {round_no + 1}: loop {1000 * loop_s / turns:.3f} ms/turn, "
                f"raw SDK {1000 * raw_s / turns:.3f} ms/turn, ratio {loop_s / raw_s:.3f} "
                f"(client cpu ratio {loop_cpu / raw_cpu:.3f})"
            )
        print(f"turns per run: {turns}, rounds: {rounds}")
        for label, times in (("wall", wall), ("client cpu", cpu)):
            loop_med, raw_med = statistics.median(times["loop"]), statistics.median(times["raw"])
            print(
                f"{label:>10}: loop {1000 * loop_med / turns:.3f} ms/turn, raw SDK {1000 * raw_med / turns:.3f} ms/turn, "
                f"overhead {1000 * (loop_med - raw_med) / turns:.3f} ms/turn, ratio {loop_med / raw_med:.3f} (target <= 1.15)"
            )
        if profile:
            profiler = cProfile.Profile()
            profiler.enable()
            await run_loop(turns, workdir)
            profiler.disable()
            pstats.Stats(profiler).sort_stats("cumulative").print_stats(40)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--profile", action="store_true", help="cProfile one extra loop run")
    args = parser.parse_args()
    asyncio.run(main(args.turns, args.rounds, args.profile))
