"""Recovery benchmark: 100 seeded sessions under a mix of model faults.

Every model call draws, at random, a clean answer (text or tool calls) or a fault: 529
overloaded, 429 with retry-after, a mid-stream error event, a connection dropped mid-stream,
a cut-off answer (max_tokens) or prompt-too-long. Some sessions have a fallback model.
Retries really run (their waits are recorded, not slept). Compaction requests are answered.

Prints how many submissions ended in each terminal reason, retry / fallback / compaction
counts, and whether the invariant — every tool_use answered by exactly one tool_result —
held in every request the model received and in every session's history.

    python bench/recovery.py [--sessions 100] [--seed 7]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from nb_agent.context.compact import SUMMARY_SYSTEM_PROMPT
from nb_agent.engine import EngineConfig, EngineOptions, QueryEngine
from nb_agent.model.retry import RetryPolicy
from nb_agent.testing import (
    ErrorReply,
    Reply,
    ScriptedTransport,
    overloaded_error,
    prompt_too_long_error,
    rate_limit_error,
    text,
    tool_use,
)
from nb_agent.testing.collect import assert_history_invariant, assert_tool_result_invariant
from nb_agent.testing.retry import RetryRecorder
from nb_agent.testing.tools import RecordingTool

FAULTS = {
    "none": 0.55,
    "529": 0.12,
    "429": 0.06,
    "mid_stream_error": 0.08,
    "dropped": 0.08,
    "max_tokens": 0.06,
    "prompt_too_long": 0.05,
}


class FaultyModel:
    def __init__(self, rng: random.Random, stats: Counter[str]) -> None:
        self.rng = rng
        self.stats = stats
        self.violations = 0
        self.requests = 0

    def _answer(self) -> list[dict[str, Any]]:
        if self.rng.random() < 0.5:
            calls = self.rng.randint(1, 3)
            blocks = [tool_use("Echo", {"value": f"v{self.rng.randint(0, 99)}", "sleep": self.rng.choice([0, 0, 0.001])}) for _ in range(calls)]
            return [text("Working on it."), *blocks]
        return [text("Here is the answer. " * self.rng.randint(1, 8))]

    def __call__(self, body: dict[str, Any]) -> Reply | ErrorReply:
        self.requests += 1
        try:
            assert_tool_result_invariant(body["messages"])
        except AssertionError:
            self.violations += 1
        if body.get("system") == SUMMARY_SYSTEM_PROMPT:
            self.stats["summary requests"] += 1
            return Reply(content=[text("<summary>Earlier work, summarized.</summary>")])
        fault = self.rng.choices(list(FAULTS), weights=list(FAULTS.values()))[0]
        self.stats[f"fault {fault}"] += 1
        content = self._answer()
        model = body["model"]
        if fault == "529":
            return overloaded_error()
        if fault == "429":
            return rate_limit_error(retry_after=self.rng.choice([1, 2, 5]))
        if fault == "prompt_too_long":
            return prompt_too_long_error()
        if fault == "mid_stream_error":
            return Reply(content=content, model=model, error_after_events=self.rng.randint(1, 12), error_type=self.rng.choice(["api_error", "overloaded_error"]))
        if fault == "dropped":
            return Reply(content=content, model=model, drop_after_events=self.rng.randint(0, 12))
        if fault == "max_tokens":
            return Reply(content=[text("A long answer that gets cut")], model=model, stop_reason="max_tokens")
        return Reply(content=content, model=model)


async def run_session(index: int, rng: random.Random, stats: Counter[str], terminals: Counter[str], tmp: Path) -> tuple[int, int, int]:
    model = FaultyModel(rng, stats)
    recorder = RetryRecorder()
    fallback = "claude-sonnet-4-6" if index % 2 else None
    config = EngineConfig(
        cwd=tmp / f"s{index}",
        model="claude-opus-4-6",
        fallback_model=fallback,
        max_turns=12,
        options=EngineOptions(retry_policy=RetryPolicy(sleep=recorder, random=rng.random)),
    )
    engine = QueryEngine(config=config, transport=ScriptedTransport([model] * 2_000), tools=[RecordingTool("Echo")])
    history_violations = 0
    for prompt in range(rng.randint(1, 3)):
        async for event in engine.submit_message(f"task {prompt}"):
            kind = getattr(event, "type", None)
            if kind == "result":
                reason = event.terminal_reason or "none"
                terminals[f"{reason} (with error)" if event.is_error and reason == "completed" else reason] += 1
            elif kind == "system" and event.subtype in ("api_retry", "fallback"):
                stats[event.subtype] += 1
            elif kind == "compact_boundary":
                stats[f"compaction ({event.trigger})"] += 1
            elif kind == "tombstone":
                stats["tombstones"] += 1
        try:
            assert_history_invariant(engine.messages)
        except AssertionError:
            history_violations += 1
    stats["retry wait (s, recorded)"] += round(sum(recorder.delays))
    engine.close()
    return model.requests, model.violations, history_violations


async def main_async(sessions: int, seed: int) -> None:
    rng = random.Random(seed)
    stats: Counter[str] = Counter()
    terminals: Counter[str] = Counter()
    requests = violations = history_violations = 0
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        for index in range(sessions):
            r, v, h = await run_session(index, rng, stats, terminals, Path(tmp))
            requests += r
            violations += v
            history_violations += h
    elapsed = time.monotonic() - started
    print(f"{sessions} sessions, {sum(terminals.values())} submissions, {requests} model requests, seed {seed}, {elapsed:.1f}s\n")
    print("terminal reasons:")
    for reason, count in terminals.most_common():
        print(f"  {reason:24} {count}")
    print("\nevents:")
    for key in sorted(stats):
        print(f"  {key:28} {stats[key]}")
    print(f"\ninvariant violations in requests sent: {violations} of {requests}")
    print(f"invariant violations in session histories: {history_violations}")
    print("invariant held everywhere" if violations == history_violations == 0 else "INVARIANT BROKEN")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=100)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    asyncio.run(main_async(args.sessions, args.seed))


if __name__ == "__main__":
    main()
