"""Long-session benchmark: 300 tool turns of 20 KB results against a 200k-token window.

A scripted model calls one tool per turn (10 tool turns per prompt, 30 prompts) and answers
compaction requests with a summary; it reports input tokens like the API (about four
characters a token). Two runs: the tool is ``Bash`` (compactable: microcompact clears old
results under pressure) and an MCP tool (not compactable: autocompact summarizes).

Prints the largest request the model received against the blocking limit, whether any run
ended at ``blocking_limit`` / ``prompt_too_long``, how often each context tier ran, and the
process's peak RSS. No assertions: figures only.

    python bench/long_session.py [--turns 300] [--per-prompt 10] [--result-kb 20]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from nb_agent.context.compact import SUMMARY_SYSTEM_PROMPT
from nb_agent.context.config import thresholds_for
from nb_agent.context.tokens import estimate_api_messages_tokens, estimate_text_tokens
from nb_agent.engine import EngineConfig, EngineOptions, QueryEngine
from nb_agent.model.retry import NO_RETRIES
from nb_agent.testing import Reply, ScriptedTransport, text, tool_use
from nb_agent.testing.collect import assert_tool_result_invariant
from nb_agent.testing.tools import FunctionTool

MODEL = "claude-sonnet-4-6"


class ResultInput(BaseModel):
    turn: int = 0


def _system_text(body: dict[str, Any]) -> str:
    system = body.get("system") or ""
    return system if isinstance(system, str) else " ".join(b.get("text", "") for b in system)


class LongSessionModel:
    """Calls the tool ``per_prompt`` times per prompt, then answers; summarizes on request."""

    def __init__(self, tool_name: str, per_prompt: int) -> None:
        self.tool_name = tool_name
        self.per_prompt = per_prompt
        self.calls_this_prompt = 0
        self.turn = 0
        self.largest_tokens = 0
        self.largest_chars = 0
        self.requests = 0
        self.summaries = 0
        self.invariant_violations = 0

    def __call__(self, body: dict[str, Any]) -> Reply:
        chars = len(json.dumps(body["messages"])) + len(_system_text(body))
        tokens = estimate_api_messages_tokens(body["messages"]) + estimate_text_tokens(_system_text(body))
        if body.get("system") == SUMMARY_SYSTEM_PROMPT:
            self.summaries += 1
            summary = f"<summary>Turns up to {self.turn} fetched 20 KB results; keep going.</summary>"
            return Reply(content=[text(summary)], input_tokens=tokens, model=MODEL)
        self.requests += 1
        try:
            assert_tool_result_invariant(body["messages"])
        except AssertionError:
            self.invariant_violations += 1
        self.largest_tokens = max(self.largest_tokens, tokens)
        self.largest_chars = max(self.largest_chars, chars)
        last = body["messages"][-1]["content"]
        new_prompt = any(b.get("type") == "text" and b.get("text", "").startswith("prompt ") for b in last)
        if new_prompt:
            self.calls_this_prompt = 0
        if self.calls_this_prompt < self.per_prompt:
            self.calls_this_prompt += 1
            self.turn += 1
            return Reply(content=[tool_use(self.tool_name, {"turn": self.turn})], input_tokens=tokens, model=MODEL)
        return Reply(content=[text(f"Done with {self.turn} turns.")], input_tokens=tokens, model=MODEL)


def _tool(name: str, result_chars: int) -> FunctionTool:
    async def produce(inp: ResultInput, ctx: Any) -> str:
        line = f"turn {inp.turn}: " + "0123456789abcdef" * 6 + "\n"
        return (line * (result_chars // len(line) + 1))[:result_chars]

    tool = FunctionTool(name, produce, ResultInput, read_only=True, concurrency_safe=True)
    tool.max_result_size_chars = 30_000  # Bash's threshold: a 20 KB result stays in context
    return tool


async def run(tool_name: str, *, turns: int, per_prompt: int, result_chars: int) -> dict[str, Any]:
    model = LongSessionModel(tool_name, per_prompt)
    transport = ScriptedTransport([model] * (turns * 3 + 100))
    with tempfile.TemporaryDirectory() as tmp:
        config = EngineConfig(cwd=Path(tmp), model=MODEL, options=EngineOptions(retry_policy=NO_RETRIES))
        engine = QueryEngine(config=config, transport=transport, tools=[_tool(tool_name, result_chars)])
        terminals: Counter[str] = Counter()
        started = time.monotonic()
        prompt = 0
        while model.turn < turns:
            prompt += 1
            async for event in engine.submit_message(f"prompt {prompt}: fetch {per_prompt} more results"):
                if getattr(event, "type", None) == "result":
                    terminals[event.terminal_reason or "none"] += 1
        elapsed = time.monotonic() - started
        stats = engine.context_manager.stats
        engine.close()
    return {
        "tool": tool_name,
        "turns": model.turn,
        "prompts": prompt,
        "model requests": model.requests,
        "largest request (est. tokens)": model.largest_tokens,
        "largest request (chars)": model.largest_chars,
        "autocompactions": stats.compactions["auto"],
        "reactive compactions": stats.compactions["reactive"],
        "compaction failures": stats.compaction_failures,
        "microcompact clears": stats.microcompact_clears,
        "results replaced by budget": stats.results_replaced,
        "summary requests": model.summaries,
        "terminals": dict(terminals),
        "blocking_limit or prompt_too_long": terminals["blocking_limit"] + terminals["prompt_too_long"],
        "invariant violations": model.invariant_violations,
        "seconds": round(elapsed, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=300)
    parser.add_argument("--per-prompt", type=int, default=10)
    parser.add_argument("--result-kb", type=float, default=20)
    args = parser.parse_args()
    limits = thresholds_for(MODEL)
    print(f"model {MODEL}: window {limits.context_window:,}, effective {limits.effective_window:,}, "
          f"autocompact at {limits.autocompact:,}, blocking at {limits.blocking:,} tokens")
    for tool_name in ("Bash", "mcp__docs__fetch"):
        report = asyncio.run(run(tool_name, turns=args.turns, per_prompt=args.per_prompt, result_chars=int(args.result_kb * 1000)))
        print()
        for key, value in report.items():
            print(f"  {key:34} {value:,}" if isinstance(value, int) else f"  {key:34} {value}")
        headroom = limits.blocking - report["largest request (est. tokens)"]
        print(f"  {'headroom below blocking limit':34} {headroom:,} tokens")
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(f"\npeak RSS {peak_kb / 1024:.1f} MB")


if __name__ == "__main__":
    main()
