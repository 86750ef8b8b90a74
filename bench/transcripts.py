"""Transcripts of a long session: bytes per message, resume time, listing time.

A session of about ``--messages`` messages is run through the engine: cells of 10 turns,
each turn a short text and two ``Read`` calls of 1–2 KB CSV files (the real tool, so its
results carry the real structured output). The model is scripted in-process and is sent
only the last message (building and copying the whole growing request is not what is
measured here).

Printed: the transcript's size and bytes per message; ``QueryEngine.resume`` of the
transcript (median of ``--repeats``, wall and process CPU time, with the garbage collector
on as in a kernel); the time ``%agent sessions`` takes to list ``--copies`` such
transcripts.

    python bench/transcripts.py [--messages 10000] [--repeats 5] [--copies 10]
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from compare import main

MODEL = "claude-sonnet-4-6"
TURNS_PER_CELL = 10
FILES = 40


def _write_files(folder: Path) -> list[Path]:
    paths = []
    for i in range(FILES):
        rows = ["date,region,revenue,ad_spend"] + [f"2025-{1 + r % 12:02d}-{1 + r % 28:02d},r{r % 7},{1000 + 37 * r + i},{200 + 11 * r}" for r in range(30 + i)]
        path = folder / f"sales_{i:02d}.csv"
        path.write_text("\n".join(rows) + "\n")
        paths.append(path)
    return paths


class ReadingModel:
    """Two Reads per turn, ten turns per cell, then an answer."""

    def __init__(self, files: list[Path]) -> None:
        self.files = files
        self.turn = 0
        self.in_cell = 0

    def __call__(self, body: dict[str, Any]) -> Any:
        from nb_agent.testing import Reply, text, tool_use

        last = body["messages"][-1]["content"]
        if any(b.get("type") == "text" and b.get("text", "").startswith("cell ") for b in last):
            self.in_cell = 0
        if self.in_cell < TURNS_PER_CELL:
            self.in_cell += 1
            self.turn += 1
            a, b = (self.files[(2 * self.turn + k) % len(self.files)] for k in (0, 1))
            content = [text(f"Comparing {a.name} with {b.name}."), tool_use("Read", {"file_path": str(a)}), tool_use("Read", {"file_path": str(b)})]
            return Reply(content=content, model=MODEL)
        return Reply(content=[text(f"Revenue rose in {self.turn % 12 + 1} of the files I compared.")], model=MODEL)


def _last_message_transport(model: ReadingModel) -> Any:
    from nb_agent.testing import ScriptedTransport

    class LastMessageTransport(ScriptedTransport):
        def stream(self, request: dict[str, Any]) -> Any:
            return super().stream({**request, "messages": request["messages"][-1:], "tools": [], "system": ""})

    return LastMessageTransport([model] * 1_000_000)


async def build_session(workdir: Path, target_messages: int) -> Path:
    from nb_agent.engine import EngineConfig, QueryEngine
    from nb_agent.tools.files.read import ReadTool

    files = _write_files(workdir)
    model = ReadingModel(files)
    engine = QueryEngine(config=EngineConfig(cwd=workdir, model=MODEL, permission_mode="acceptEdits"), tools=[ReadTool()], transport=_last_message_transport(model))
    cell = 0
    while len(engine.messages) < target_messages:
        async for event in engine.submit_message(f"cell {cell}: compare the next files"):
            if getattr(event, "type", None) == "result":
                assert event.subtype == "success", event
        cell += 1
    engine.close()
    return engine.transcript_path


def _persisted_messages(path: Path) -> int:
    import json

    return sum(1 for line in path.read_text().splitlines() if line.strip() and json.loads(line).get("kind") == "message")


def measure(args: argparse.Namespace) -> dict[str, Any]:
    from nb_agent.engine import QueryEngine
    from nb_agent.jupyter.saved_sessions import list_sessions
    from nb_agent.tools.files.read import ReadTool

    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        path = asyncio.run(build_session(workdir, args.messages))
        size = path.stat().st_size
        persisted = _persisted_messages(path)
        resume_s: list[float] = []
        resume_cpu: list[float] = []
        history = 0
        for _ in range(args.repeats):
            started, cpu = time.perf_counter(), time.process_time()
            engine, _warnings = QueryEngine.resume(path, tools=[ReadTool()])
            resume_s.append(time.perf_counter() - started)
            resume_cpu.append(time.process_time() - cpu)
            history = len(engine.messages)
            engine.close()
            del engine  # freed here, not while the next resume is timed (rebinding frees it then)
        listing = workdir / "listing"
        listing.mkdir()
        for i in range(args.copies):
            shutil.copy(path, listing / f"{i:08d}-0000-0000-0000-000000000000.jsonl")
        list_s: list[float] = []
        for _ in range(3):
            started = time.perf_counter()
            found = list_sessions(listing)
            list_s.append(time.perf_counter() - started)
        assert len(found) == args.copies and all(s.messages > 0 for s in found), found
    return {
        "messages in the transcript": persisted,
        "messages resumed": history,
        "transcript MB": size / 1e6,
        "bytes per message": round(size / persisted),
        "resume ms (median)": 1000 * statistics.median(resume_s),
        "resume CPU ms (median)": 1000 * statistics.median(resume_cpu),
        f"list {args.copies} sessions ms": 1000 * statistics.median(list_s),
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--copies", type=int, default=10)
    main(measure, parser, targets={"resume ms (median)": "<= 100"})
