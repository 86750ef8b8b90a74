"""ToolSearch with a realistic MCP tool set, served by real MCP servers.

What is measured:

1. Request size. Every server of ``mcp_catalog.json`` (589 real tool definitions from 20
   public MCP servers) is served by its own ``nb_agent.testing.mcp_server`` process over
   stdio and connected through ``McpManager``; the pool is the real built-ins plus
   ``ToolSearch`` plus those MCP tools. We compare the ``tools`` of the first request in
   ``auto`` mode (200k window) with ``off``. Size is ``len(json.dumps(definitions)) / 4``,
   the usual ~4 characters per token estimate for English and JSON (the same estimate the
   auto threshold uses; exact counts need the API's count_tokens). Target: auto ≤ 5 % of off.
2. Ranking. Each request in ``bench/tool_search_queries.json`` goes through
   ``ToolSearchTool.search`` as the model's query would (default ``max_results`` 5); a hit
   is the intended tool (or an equally valid ``also_ok`` one) among the 5 results. Reported
   per split: ``dev`` (tuned against), ``heldout`` (written after a first freeze, seen once
   before general fixes), ``fresh`` (written after the last freeze, never tuned against).
   Target: ≥ 90 %.
3. Concurrency. 8 calls of the test server's read-only ``slow`` tool (sleeps 1 s) through
   ``McpTool.call`` with ``asyncio.gather``. Target: wall time ≤ 1.3 s.

    python bench/tool_search.py [--catalog PATH] [--show-misses]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import time
from pathlib import Path
from typing import Any

from nb_agent.abort import AbortController
from nb_agent.agent import builtin_tools
from nb_agent.mcp import McpManager, McpSettings, McpTool
from nb_agent.testing.mcp_server import stdio_config
from nb_agent.tools.base import ToolUseContext
from nb_agent.tools.pool import assemble_tool_pool
from nb_agent.tools.tool_search import (
    DEFAULT_CONTEXT_WINDOW,
    ToolSearchTool,
    deferred_tools_prompt,
    estimate_tools_tokens,
    tools_for_request,
)

HERE = Path(__file__).parent
DEFAULT_CATALOG = Path(os.environ.get("NB_AGENT_MCP_CATALOG", "/work/shared/data/mcp_catalog.json"))
QUERIES = HERE / "tool_search_queries.json"


async def start_servers(catalog: Path) -> tuple[McpManager, float]:
    servers: dict[str, Any] = {
        name: stdio_config("--bare", "--catalog", str(catalog), "--catalog-server", name)
        for name in json.loads(catalog.read_text())["servers"]
    }
    servers["bench"] = stdio_config()  # the standard tools (slow, echo, ...)
    manager = McpManager(servers=servers, settings=McpSettings(connect_timeout=60))
    started = time.perf_counter()
    await manager.ensure_started()
    elapsed = time.perf_counter() - started
    failed = [r for r in manager.list_servers() if r.status != "connected"]
    if failed:
        raise SystemExit(f"servers failed to start: {[(r.name, r.error) for r in failed]}")
    return manager, elapsed


def request_sizes(pool: list[Any]) -> dict[str, Any]:
    auto = tools_for_request(pool, [], "auto", DEFAULT_CONTEXT_WINDOW)
    off = tools_for_request(pool, [], "off", DEFAULT_CONTEXT_WINDOW)
    prompt = deferred_tools_prompt(pool, "auto", DEFAULT_CONTEXT_WINDOW) or ""
    return {
        "auto_tools": len(auto),
        "off_tools": len(off),
        "auto_tokens": estimate_tools_tokens(auto),
        "off_tokens": estimate_tools_tokens(off),
        "prompt_tokens": len(prompt) // 4,
    }


def ranking(pool: list[Any], queries: list[dict[str, Any]], show_misses: bool) -> dict[str, tuple[int, int]]:
    search = ToolSearchTool()
    per_split: dict[str, list[int]] = {}
    for q in queries:
        wanted = {q["expected"], *q.get("also_ok", [])}
        got = search.search(pool, q["query"], max_results=5).matches
        hit = bool(wanted & set(got))
        counts = per_split.setdefault(q.get("split", "all"), [0, 0])
        counts[0] += hit
        counts[1] += 1
        if show_misses and not hit:
            print(f"  miss [{q.get('split')}] {q['query']!r} → want {q['expected']}; got {got}")
    return {split: (c[0], c[1]) for split, c in per_split.items()}


async def concurrency(manager: McpManager) -> float:
    slow = next(t for t in manager.tools() if t.name == "mcp__bench__slow")
    assert isinstance(slow, McpTool) and slow.is_concurrency_safe(None)
    ctx = ToolUseContext(abort_controller=AbortController())
    parsed = slow.parse_input({"sleep_seconds": 1.0})
    await slow.call(parsed, ctx, lambda _: None)  # warm-up
    started = time.perf_counter()
    await asyncio.gather(*(slow.call(parsed, ctx, lambda _: None) for _ in range(8)))
    return time.perf_counter() - started


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--catalog", type=Path, default=DEFAULT_CATALOG)
    parser.add_argument("--show-misses", action="store_true")
    args = parser.parse_args()

    manager, startup = await start_servers(args.catalog)
    try:
        catalog_tools = [t for t in manager.tools() if t.server_name != "bench"]
        pool = assemble_tool_pool([*builtin_tools(), ToolSearchTool()], catalog_tools)
        servers = len(manager.list_servers()) - 1
        print(f"{len(catalog_tools)} MCP tools from {servers} real stdio servers (+1 for the concurrency test), "
              f"all started concurrently in {startup:.2f} s")

        sizes = request_sizes(pool)
        share = sizes["auto_tokens"] / sizes["off_tokens"]
        print("\n1. First request's `tools` (tokens ≈ len(json.dumps(definitions)) / 4)")
        print(f"   off : {sizes['off_tools']:4d} tools, {sizes['off_tokens']:7,d} tokens "
              f"({sizes['off_tokens'] / DEFAULT_CONTEXT_WINDOW:.0%} of a 200k window)")
        print(f"   auto: {sizes['auto_tools']:4d} tools, {sizes['auto_tokens']:7,d} tokens = {share:.1%} of off "
              f"(target ≤ 5%)  [+{sizes['prompt_tokens']} tokens of system-prompt text naming the servers]")

        queries = json.loads(QUERIES.read_text())["queries"]
        results = ranking(pool, queries, args.show_misses)
        hits = sum(h for h, _ in results.values())
        total = sum(n for _, n in results.values())
        print(f"\n2. Intended tool in ToolSearch's top 5: {hits}/{total} = {hits / total:.1%} (target ≥ 90%)")
        for split, (h, n) in results.items():
            print(f"   {split:8s} {h:3d}/{n:<3d} = {h / n:.1%}")

        wall = await concurrency(manager)
        print(f"\n3. 8 concurrent calls of a read-only MCP tool sleeping 1 s: {wall:.2f} s wall (target ≤ 1.3 s)")
    finally:
        await manager.aclose()


if __name__ == "__main__":
    asyncio.run(main())
