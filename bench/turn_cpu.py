"""Client CPU per turn early and late in a long data-science session (nb_agent's own share).

A session of ``--cells`` cells of 10 tool turns each (800 turns by default): the model calls
a tool named ``ExecuteCode`` (compactable, so microcompact clears old results near the
warning threshold and the message count never shrinks) that returns 4 KB of text, ten
times, then answers. The model reports input tokens as the API would, so the context
tiers see realistic sizes. A cell's CPU is the CPU time of the thread running the engine
over the cell, per request (a cell makes 11), split into parts:

- **loop** (the target's measure): the model is in-process and answers without HTTP or the
  SDK; its own work (counting the request's tokens, making the reply's events) is timed
  and left out, as are the interpreter's garbage collections on that thread
  (``gc.callbacks``, printed apart). What is left is nb_agent's own code.
- **SDK**: the real ``anthropic`` SDK over HTTP to the fake server, which runs in a
  process of its own (``--serve``, with the prompt-cache simulation) as the API does.
  The SDK's calls (``messages.create`` and each step of its event stream: copying,
  encoding and sending the request, parsing the reply) are timed by a transport wrapper.
  This shows what a request costs the client in all, most of it the SDK's copy and
  encoding of a request that grows with the window.

The machine is shared, so CPU time drifts over a long run: the late cells are compared
with a fresh session run *interleaved* with them (before each of the last
``--late-cells`` cells, one new session's second cell, turns 11–20, in the same process
at the same moment). The long session's own early cells (2–3) are printed too.

    python bench/turn_cpu.py [--cells 80] [--late-cells 6]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import statistics
import subprocess
import sys
import threading
import tempfile
import time
from pathlib import Path
from typing import Any

from compare import main, module_of_this_tree
from pydantic import BaseModel

MODEL = "claude-sonnet-4-6"
TURNS_PER_CELL = 10
REQUESTS_PER_CELL = TURNS_PER_CELL + 1
RESULT_CHARS = 4_000


class CodeInput(BaseModel):
    code: str


def _result_text(code: str) -> str:
    line = f"{code}: " + "0.123456 " * 10 + "\n"
    return (line * (RESULT_CHARS // len(line) + 1))[:RESULT_CHARS]


class SessionModel:
    """Ten tool calls per cell, then an answer (cells of several sessions take turns)."""

    def __init__(self, server: Any = None) -> None:
        self.server = server
        self.turn = 0
        self.in_cell = 0

    def __call__(self, body: dict[str, Any], input_tokens: int = 100) -> Any:
        from nb_agent.testing import Reply, text, tool_use

        if self.server is not None:
            self.server.requests.clear()  # the fake server keeps every body otherwise
        last = body["messages"][-1]["content"]
        if any(b.get("type") == "text" and b.get("text", "").startswith("cell ") for b in last):
            self.in_cell = 0
        if self.in_cell < TURNS_PER_CELL:
            self.in_cell += 1
            self.turn += 1
            content = [text(f"Step {self.turn}."), tool_use("ExecuteCode", {"code": f"df.describe() # {self.turn}"})]
            return Reply(content=content, model=MODEL, input_tokens=input_tokens)
        return Reply(content=[text(f"Done after {self.turn} steps.")], model=MODEL, input_tokens=input_tokens)


class Clocks:
    """CPU of this thread outside nb_agent: in the model's side (SDK or in-process model)
    and in garbage collections (inside the model's side or not)."""

    def __init__(self) -> None:
        self.model = 0.0
        self.gc = 0.0
        self.gc_in_model = 0.0
        self._in_model = False
        self._gc_started = 0.0
        self._thread = threading.get_ident()
        gc.callbacks.append(self._on_gc)

    def close(self) -> None:
        gc.callbacks.remove(self._on_gc)

    def _on_gc(self, phase: str, info: dict[str, Any]) -> None:
        if threading.get_ident() != self._thread:
            return
        if phase == "start":
            self._gc_started = time.thread_time()
            return
        spent = time.thread_time() - self._gc_started
        self.gc += spent
        if self._in_model:
            self.gc_in_model += spent

    async def timed(self, awaitable: Any) -> Any:
        started = time.thread_time()
        self._in_model = True
        try:
            return await awaitable
        finally:
            self._in_model = False
            self.model += time.thread_time() - started

    def reading(self) -> tuple[float, float, float, float]:
        return time.thread_time(), self.model, self.gc, self.gc_in_model


def sdk_transport(client: Any, clocks: Clocks) -> Any:
    """``AnthropicTransport`` whose SDK calls are timed."""
    from nb_agent.model.transport import AnthropicTransport

    class TimedTransport(AnthropicTransport):
        async def stream(self, request: dict[str, Any]) -> Any:
            response = await clocks.timed(self.client.messages.create(**request, stream=True))
            iterator = response.__aiter__()
            try:
                while True:
                    try:
                        event = await clocks.timed(iterator.__anext__())
                    except StopAsyncIteration:
                        break
                    yield event
            finally:
                await response.close()

    return TimedTransport(client=client)


def loop_transport(model: SessionModel, clocks: Clocks) -> Any:
    """The model in-process: it counts the request's tokens (as the API reports them) and
    makes the SDK's event objects for its reply, timed as the model's side. It counts each
    API message once (the loop shares unchanged message dicts between requests): a model
    reading every message of every request would flush the processor's caches as no
    remote API does, and slow what runs after it."""
    from anthropic.types import RawMessageStreamEvent
    from pydantic import TypeAdapter

    from nb_agent.context.tokens import estimate_api_messages_tokens
    from nb_agent.testing.script import new_message_id, reply_events

    adapter: TypeAdapter[Any] = TypeAdapter(RawMessageStreamEvent)
    counted: dict[int, tuple[dict[str, Any], int]] = {}

    def tokens_of(message: dict[str, Any]) -> int:
        hit = counted.get(id(message))
        if hit is None or hit[0] is not message:
            hit = counted[id(message)] = (message, estimate_api_messages_tokens([message]))
        return hit[1]

    async def answer(request: dict[str, Any]) -> list[Any]:
        tokens = sum(map(tokens_of, request["messages"])) + 3_000  # system prompt and tools
        reply = model(request, input_tokens=tokens)
        return [adapter.validate_python(e) for e in reply_events(reply, message_id=new_message_id())]

    class LoopTransport:
        async def stream(self, request: dict[str, Any]) -> Any:
            for event in await clocks.timed(answer(request)):
                yield event

        async def create(self, request: dict[str, Any]) -> Any:
            raise AssertionError("no side requests in this session")

    return LoopTransport()


class Session:
    """One engine; :meth:`cell` runs a cell and returns ms per request: (client, nb_agent, GC)."""

    def __init__(self, transport: Any, workdir: Path, tool: Any, clocks: Clocks) -> None:
        from nb_agent.engine import EngineConfig, QueryEngine

        self.clocks = clocks
        self.engine = QueryEngine(config=EngineConfig(cwd=workdir, model=MODEL), tools=[tool], transport=transport)
        self.cells = 0

    async def cell(self) -> tuple[float, float, float]:
        started, model, collected, collected_in_model = self.clocks.reading()
        async for event in self.engine.submit_message(f"cell {self.cells}: look at the next ten columns"):
            if getattr(event, "type", None) == "result":
                assert event.subtype == "success", event
        ended, model_after, collected_after, collected_in_model_after = self.clocks.reading()
        total, in_model, collecting = ended - started, model_after - model, collected_after - collected
        # a collection inside the model's side is counted once, as a collection
        own = total - in_model - collecting + (collected_in_model_after - collected_in_model)
        self.cells += 1
        return 1000 * total / REQUESTS_PER_CELL, 1000 * own / REQUESTS_PER_CELL, 1000 * collecting / REQUESTS_PER_CELL


def serve() -> None:
    """The fake server with the session's model, in this process until stdin closes."""
    from nb_agent.testing import FakeAnthropicServer

    simulator = module_of_this_tree("nb_agent/testing/prompt_cache.py").PromptCacheSimulator()
    with FakeAnthropicServer([], prompt_cache=simulator) as server:
        server.script.add(*[SessionModel(server)] * 100_000)
        print(f"PORT {server.port}", flush=True)
        sys.stdin.read()


Row = tuple[float, float, float]


async def run(cells: int, late_cells: int, workdir: Path, transport: Any, clocks: Clocks) -> dict[str, Any]:
    """The long session with fresh ones interleaved at its end; ``transport()`` makes each
    session's transport."""
    from nb_agent.testing.tools import FunctionTool

    async def produce(inp: CodeInput, ctx: Any) -> str:
        return _result_text(inp.code)

    tool = FunctionTool("ExecuteCode", produce, CodeInput, read_only=True, concurrency_safe=False)
    long = Session(transport(), workdir / "long", tool, clocks)
    gc.collect()
    early: list[Row] = []
    late: list[Row] = []
    fresh_second: list[Row] = []
    for cell in range(cells):
        if cell >= cells - late_cells:
            fresh = Session(transport(), workdir / f"fresh{cell}", tool, clocks)
            await fresh.cell()  # its first cell: turns 1-10
            fresh_second.append(await fresh.cell())  # turns 11-20, now, beside the late cell
            fresh.engine.close()
        row = await long.cell()
        if cell in (1, 2):
            early.append(row)
        if cell >= cells - late_cells:
            late.append(row)
    stats = long.engine.context_manager.stats
    messages = len(long.engine.messages)
    long.engine.close()

    def median(rows: list[Row], column: int) -> float:
        return statistics.median(r[column] for r in rows)

    late_label = f"last {late_cells * TURNS_PER_CELL} turns"
    return {
        "messages in history at the end": messages,
        "microcompact clears": stats.microcompact_clears,
        "compactions": sum(stats.compactions.values()),
        "client CPU/request, turns 11-30 ms": median(early, 0),
        f"client CPU/request, {late_label} ms": median(late, 0),
        "GC/request, fresh session beside the late cells ms": median(fresh_second, 2),
        f"GC/request, {late_label} ms": median(late, 2),
        "nb_agent CPU/request, turns 11-30 ms": median(early, 1),
        "nb_agent CPU/request, fresh session beside the late cells ms": median(fresh_second, 1),
        f"nb_agent CPU/request, {late_label} ms": median(late, 1),
        f"nb_agent ratio turn {cells * TURNS_PER_CELL} / turn 10 (interleaved)": median(late, 1) / median(fresh_second, 1),
    }


async def run_loop(cells: int, late_cells: int, workdir: Path) -> dict[str, Any]:
    clocks = Clocks()
    model = SessionModel()
    try:
        return await run(cells, late_cells, workdir, lambda: loop_transport(model, clocks), clocks)
    finally:
        clocks.close()


async def run_sdk(cells: int, late_cells: int, workdir: Path, port: int) -> dict[str, Any]:
    import anthropic

    clocks = Clocks()
    try:
        async with anthropic.AsyncAnthropic(base_url=f"http://127.0.0.1:{port}", api_key="test-key", max_retries=0) as client:
            return await run(cells, late_cells, workdir, lambda: sdk_transport(client, clocks), clocks)
    finally:
        clocks.close()


def measure(args: argparse.Namespace) -> dict[str, Any]:
    figures: dict[str, Any] = {"turns": args.cells * TURNS_PER_CELL}
    with tempfile.TemporaryDirectory() as tmp:
        loop = asyncio.run(run_loop(args.cells, args.late_cells, Path(tmp) / "loop"))
    figures.update({f"loop: {k}": v for k, v in loop.items()})
    server = subprocess.Popen([sys.executable, __file__, "--serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        port = int(server.stdout.readline().split()[1])
        with tempfile.TemporaryDirectory() as tmp:
            sdk = asyncio.run(run_sdk(args.cells, args.late_cells, Path(tmp) / "sdk", port))
    finally:
        assert server.stdin is not None
        server.stdin.close()
        server.wait(timeout=60)
    figures.update({f"SDK: {k}": v for k, v in sdk.items()})
    return figures


if __name__ == "__main__":
    if sys.argv[1:] == ["--serve"]:
        serve()
        sys.exit(0)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cells", type=int, default=80)
    parser.add_argument("--late-cells", type=int, default=6)
    main(measure, parser, targets={"loop: nb_agent ratio turn 800 / turn 10 (interleaved)": "<= 1.5"})
