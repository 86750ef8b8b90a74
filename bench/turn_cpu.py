"""Client CPU per turn early and late in a long data-science session (nb_agent's own share).

A session of ``--cells`` cells of 10 tool turns each (800 turns by default): the model calls
a tool named ``ExecuteCode`` (compactable, so microcompact clears old results near the
warning threshold and the message count never shrinks) that returns 4 KB of text, ten
times, then answers. The engine talks through the real ``anthropic`` SDK to the fake
Messages API server, which reports input tokens and cache use as the API would (its
prompt-cache simulation), so the context tiers see realistic sizes.

Each request's start is stamped with the client thread's CPU time (an httpx request
hook): a turn's CPU is the time from one request to the next. The SDK's share of it is
the client thread's CPU inside the SDK's calls (``messages.create`` and each step of its
event stream: building and encoding the request, parsing the reply), measured around
them by a transport wrapper; nb_agent's share is the rest. Reported for turns 11–30 ("at
10 turns") and the last 20 turns, as the median of ``--rounds`` sessions.

    python bench/turn_cpu.py [--cells 80] [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from compare import main, module_of_this_tree
from pydantic import BaseModel

MODEL = "claude-sonnet-4-6"
TURNS_PER_CELL = 10
RESULT_CHARS = 4_000
WINDOW = 20


class CodeInput(BaseModel):
    code: str


def _result_text(code: str) -> str:
    line = f"{code}: " + "0.123456 " * 10 + "\n"
    return (line * (RESULT_CHARS // len(line) + 1))[:RESULT_CHARS]


class SessionModel:
    """Ten tool calls per cell, then an answer."""

    def __init__(self, server: Any) -> None:
        self.server = server
        self.request = 0
        self.turn = 0
        self.in_cell = 0

    def __call__(self, body: dict[str, Any]) -> Any:
        from nb_agent.testing import Reply, text, tool_use

        self.request += 1
        self.server.requests.clear()  # the fake server keeps every body otherwise
        last = body["messages"][-1]["content"]
        if any(b.get("type") == "text" and b.get("text", "").startswith("cell ") for b in last):
            self.in_cell = 0
        if self.in_cell < TURNS_PER_CELL:
            self.in_cell += 1
            self.turn += 1
            return Reply(content=[text(f"Step {self.turn}."), tool_use("ExecuteCode", {"code": f"df.describe() # {self.turn}"})], model=MODEL)
        return Reply(content=[text(f"Done after {self.turn} steps.")], model=MODEL)


def _timed_transport(client: Any, sdk_cpu: list[float]) -> Any:
    """``AnthropicTransport`` adding the thread CPU spent inside the SDK to ``sdk_cpu[-1]``."""
    from nb_agent.model.transport import AnthropicTransport

    class TimedTransport(AnthropicTransport):
        async def stream(self, request: dict[str, Any]) -> Any:
            started = time.thread_time()
            response = await self.client.messages.create(**request, stream=True)
            sdk_cpu[-1] += time.thread_time() - started
            iterator = response.__aiter__()
            try:
                while True:
                    started = time.thread_time()
                    try:
                        event = await iterator.__anext__()
                    except StopAsyncIteration:
                        break
                    finally:
                        sdk_cpu[-1] += time.thread_time() - started
                    yield event
            finally:
                await response.close()

    return TimedTransport(client=client)


async def session(cells: int, workdir: Path) -> tuple[list[float], list[float], list[int]]:
    """Per request: the client thread's CPU until the next request, and the SDK's part of it."""
    import anthropic

    from nb_agent.engine import EngineConfig, QueryEngine
    from nb_agent.testing import FakeAnthropicServer
    from nb_agent.testing.tools import FunctionTool

    stamps: list[float] = []
    sdk_cpu: list[float] = [0.0]

    async def stamp(request: Any) -> None:
        if request.url.path.endswith("/messages"):
            stamps.append(time.thread_time())
            sdk_cpu.append(0.0)

    async def produce(inp: CodeInput, ctx: Any) -> str:
        return _result_text(inp.code)

    tool = FunctionTool("ExecuteCode", produce, CodeInput, read_only=True, concurrency_safe=False)
    simulator = module_of_this_tree("nb_agent/testing/prompt_cache.py").PromptCacheSimulator()
    async with FakeAnthropicServer([], prompt_cache=simulator) as server:
        model = SessionModel(server)
        server.script.add(*[model] * (cells * (TURNS_PER_CELL + 1) + 50))
        client = server.client(http_client=anthropic.DefaultAsyncHttpxClient(event_hooks={"request": [stamp]}))
        engine = QueryEngine(config=EngineConfig(cwd=workdir, model=MODEL), tools=[tool], transport=_timed_transport(client, sdk_cpu))
        gc.collect()
        for cell in range(cells):
            async for event in engine.submit_message(f"cell {cell}: look at the next ten columns"):
                if getattr(event, "type", None) == "result":
                    assert event.subtype == "success", event
        stamps.append(time.thread_time())
        stats = engine.context_manager.stats
        engine.close()
    turn_cpu = [b - a for a, b in zip(stamps, stamps[1:])]
    # sdk_cpu[i] accumulates from request i's hook on: request i's reply, then (before the
    # next hook) the next request's build and encoding, as turn_cpu[i - 1] does.
    return turn_cpu, sdk_cpu[1 : len(turn_cpu) + 1], [stats.microcompact_clears, sum(stats.compactions.values()), len(engine.messages)]


def _window_ms(turn_cpu: list[float], sdk_cpu: list[float], first: int) -> tuple[float, float]:
    """Mean client and nb_agent CPU (ms) per turn over ``WINDOW`` requests from ``first`` (0-based)."""
    indexes = range(first, first + WINDOW)
    client = [turn_cpu[i] for i in indexes]
    own = [turn_cpu[i] - sdk_cpu[i] for i in indexes]
    return 1000 * statistics.mean(client), 1000 * statistics.mean(own)


def measure(args: argparse.Namespace) -> dict[str, Any]:
    early_first = TURNS_PER_CELL + 1  # the second cell's requests: imports and connections are warm
    rounds: list[dict[str, float]] = []
    for _ in range(args.rounds):
        with tempfile.TemporaryDirectory() as tmp:
            turn_cpu, sdk_cpu, (clears, compactions, messages) = asyncio.run(session(args.cells, Path(tmp)))
        late_first = len(turn_cpu) - WINDOW - 1
        early_client, early_own = _window_ms(turn_cpu, sdk_cpu, early_first)
        late_client, late_own = _window_ms(turn_cpu, sdk_cpu, late_first)
        rounds.append({"early_client": early_client, "early_own": early_own, "late_client": late_client, "late_own": late_own})
    med = {k: statistics.median(r[k] for r in rounds) for k in rounds[0]}
    turns = args.cells * TURNS_PER_CELL
    return {
        "turns": turns,
        "messages in history at the end": messages,
        "microcompact clears": clears,
        "compactions": compactions,
        "client CPU/turn at 10 turns ms": med["early_client"],
        f"client CPU/turn at {turns} turns ms": med["late_client"],
        "nb_agent CPU/turn at 10 turns ms": med["early_own"],
        f"nb_agent CPU/turn at {turns} turns ms": med["late_own"],
        f"nb_agent ratio {turns}/10": med["late_own"] / med["early_own"],
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cells", type=int, default=80)
    parser.add_argument("--rounds", type=int, default=3)
    main(measure, parser, targets={"nb_agent ratio 800/10": "<= 1.5"})
