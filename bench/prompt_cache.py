"""Prompt caching in a 20-request working session: share of input read from the cache, and cost.

The session is two ``submit_message`` calls (two notebook cells) of 10 model requests
each, made by a real engine with the real built-in tools, through the real anthropic SDK,
against ``FakeAnthropicServer(prompt_cache=True)``, whose simulated cache follows the
API's rules (breakpoint prefixes, 20-block lookback, minimum length, 5-minute TTL; see
``nb_agent.testing.prompt_cache``). The model reads files of a small project (Read, Grep,
Glob, a parallel pair of Reads) and answers. Tokens are the fake server's estimate
(a quarter of the characters of each block), the same for every variant.

Variants:
- ``caching``: nb_agent's breakpoints (static system prompt, end of the previous request,
  end of the latest message);
- ``no caching``: ``EngineOptions(prompt_caching=False)`` (no breakpoints at all);
- ``+3 ToolSearch`` ...: the same session with 40 deferred tools (ToolSearch mode ``on``)
  of which 3 are discovered in the first cell and called, once with discovered tools
  joining the ``tools`` array (``tool_references=False``) and once with the API's
  ``defer_loading`` + ``tool_reference`` blocks (the default).

Prices are Claude Sonnet 4.6's: input $3, cache write $3.75, cache read $0.30, output $15
per million tokens. Target: ≥ 85 % of input tokens read from the cache.

    python bench/prompt_cache.py
"""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path
from typing import Any

from nb_agent.agent import create_engine
from nb_agent.engine import EngineConfig, EngineOptions, EngineResult
from nb_agent.model.pricing import Usage
from nb_agent.model.transport import AnthropicTransport
from nb_agent.testing import FakeAnthropicServer, Reply, text, tool_use
from nb_agent.testing.tools import RecordingTool

MODEL = "claude-sonnet-4-6"
FILES = 8


def make_project(root: Path) -> None:
    for i in range(FILES):
        lines = [f'"""Module {i} of the example project."""', ""]
        for j in range(60):
            lines += [f"def function_{i}_{j}(value):", f"    # step {j}: scale and shift", f"    return value * {j} + {i}", ""]
        (root / f"module_{i}.py").write_text("\n".join(lines), encoding="utf-8")
    (root / "README.md").write_text("# Example\n\nEight modules of small numeric helpers.\n" * 20, encoding="utf-8")


def cell_one(root: Path, discoveries: bool) -> list[Reply]:
    turns = [Reply(content=[text("I'll look at the project layout first."), tool_use("Glob", {"pattern": "*.py"}, id="c1_glob")])]
    reads = 2 if discoveries else 3
    turns += [Reply(content=[tool_use("Read", {"file_path": str(root / f"module_{i}.py")}, id=f"c1_read{i}")]) for i in range(reads)]
    if discoveries:
        for k in range(3):
            turns.append(Reply(content=[tool_use("ToolSearch", {"query": f"select:Helper{k}"}, id=f"c1_search{k}")]))
            turns.append(Reply(content=[tool_use(f"Helper{k}", {"value": f"call {k}"}, id=f"c1_helper{k}")]))
    else:
        turns.append(Reply(content=[tool_use("Grep", {"pattern": "step 7", "output_mode": "count"}, id="c1_grep")]))
        turns += [Reply(content=[tool_use("Read", {"file_path": str(root / f"module_{i}.py")}, id=f"c1_read{i}")]) for i in (3, 4)]
        turns.append(Reply(content=[tool_use("Read", {"file_path": str(root / "README.md")}, id="c1_readme")]))
        turns.append(Reply(content=[tool_use("Grep", {"pattern": "def function_0_", "output_mode": "count"}, id="c1_grep2")]))
    turns.append(Reply(content=[text("The modules are uniform: each defines 60 scale-and-shift helpers.")]))
    return turns


def cell_two(root: Path) -> list[Reply]:
    pair = [tool_use("Read", {"file_path": str(root / f"module_{i}.py")}, id=f"c2_pair{i}") for i in (5, 6)]
    turns = [Reply(content=[text("Reading the remaining modules."), *pair])]
    turns += [Reply(content=[tool_use("Read", {"file_path": str(root / "module_7.py")}, id="c2_read7")])]
    turns += [Reply(content=[tool_use("Grep", {"pattern": f"return value \\* {j} ", "output_mode": "count"}, id=f"c2_grep{j}")]) for j in range(6)]
    turns += [Reply(content=[tool_use("Glob", {"pattern": "**/*.md"}, id="c2_glob")])]
    turns.append(Reply(content=[text("Every module follows the same pattern; nothing stands out.")]))
    return turns


def deferred_helpers() -> list[Any]:
    helpers = []
    for k in range(40):
        tool = RecordingTool(f"Helper{k}")
        tool.should_defer = True  # type: ignore[misc]
        helpers.append(tool)
    return helpers


async def run_session(*, caching: bool, discoveries: bool, tool_references: bool = True) -> tuple[Usage, float, int]:
    with tempfile.TemporaryDirectory(prefix="nb_agent-bench-") as tmp:
        root = Path(tmp)
        make_project(root)
        first, second = cell_one(root, discoveries), cell_two(root)
        async with FakeAnthropicServer([*first, *second], prompt_cache=True) as server:
            config = EngineConfig(
                cwd=root, model=MODEL, options=EngineOptions(prompt_caching=caching, tool_references=tool_references)
            )
            from nb_agent.agent import builtin_tools

            engine, _ = create_engine(
                config=config,
                transport=AnthropicTransport(client=server.client()),
                tools=builtin_tools(),
                extra_tools=deferred_helpers() if discoveries else [],
                mcp=False,
                permission_mode="bypassPermissions",
            )
            if engine.tool_pool is not None:
                engine.tool_pool.mode = "on" if discoveries else "off"
            for prompt in ("Look around this project and tell me what it contains.", "Now check the other modules."):
                async for event in engine.submit_message(prompt):
                    if isinstance(event, EngineResult) and event.is_error:
                        raise SystemExit(f"run failed: {event.error or event.subtype}")
            requests = len(server.requests)
            engine.close()
            return engine.usage.total, engine.usage.cost_usd, requests


def report(name: str, usage: Usage, cost: float, requests: int) -> None:
    total_input = usage.context_tokens
    print(
        f"{name:<34} {requests:>3} requests · input {total_input:>8,} tokens · "
        f"read from cache {100 * usage.cache_read_share:5.1f} % · written {usage.cache_creation_input_tokens:>7,} · "
        f"fresh {usage.input_tokens:>7,} · ${cost:.4f}"
    )


async def main() -> None:
    print(f"{MODEL}, two cells, the fake server's simulated prompt cache\n")
    variants = [
        ("caching", {"caching": True, "discoveries": False}),
        ("no caching", {"caching": False, "discoveries": False}),
        ("+3 ToolSearch, tool_reference", {"caching": True, "discoveries": True, "tool_references": True}),
        ("+3 ToolSearch, tools array", {"caching": True, "discoveries": True, "tool_references": False}),
        ("+3 ToolSearch, no caching", {"caching": False, "discoveries": True}),
    ]
    results = {}
    for name, kwargs in variants:
        results[name] = await run_session(**kwargs)
        report(name, *results[name])
    saved = 1 - results["caching"][1] / results["no caching"][1]
    print(f"\ncaching saves {100 * saved:.1f} % of the cost of the plain session")
    saved_ts = 1 - results["+3 ToolSearch, tool_reference"][1] / results["+3 ToolSearch, no caching"][1]
    print(f"caching saves {100 * saved_ts:.1f} % of the cost of the ToolSearch session (tool_reference)")


if __name__ == "__main__":
    asyncio.run(main())
