"""What a tool catalog costs per request: time to build the ``tools`` and bytes on the wire.

The pool is the built-in tools plus MCP tools made from ``mcp_catalog.json`` (589 real
definitions from 20 servers; for larger catalogs its servers are repeated under new
names). ``ToolPoolProvider.tool_definitions`` builds the ``tools`` of a request exactly as
the engine asks it to before every request, in ToolSearch ``auto`` mode, with a window in
which ToolSearch has loaded three tools; with ``tool_reference`` loading (Anthropic's API,
Foundry) and without it (Bedrock, Vertex). Reported per catalog size: the first build (a
new pool), the median time of one build over ``--requests`` builds in a row, and the JSON
bytes of the ``tools`` sent.

    python bench/tool_catalog.py [--requests 20] [--catalog PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path
from typing import Any

from compare import main

DEFAULT_CATALOG = Path(os.environ.get("NB_AGENT_MCP_CATALOG", "/work/shared/data/mcp_catalog.json"))
SIZES = (0, 589, 10_000)


def _mcp_tools(catalog: dict[str, Any], count: int) -> list[Any]:
    import mcp.types as mt

    from nb_agent.mcp import McpTool

    raw = [(server, tool) for server, tools in catalog["servers"].items() for tool in tools]
    out = []
    for i in range(count):
        server, tool = raw[i % len(raw)]
        copy = i // len(raw)
        definition = mt.Tool(name=tool["name"], description=tool.get("description"), inputSchema=tool.get("inputSchema") or {"type": "object"})
        out.append(McpTool(server_name=f"{server}{copy or ''}", definition=definition, caller=None))  # type: ignore[arg-type]
    return out


def _window_with_discovery(pool: list[Any], references: bool) -> list[Any]:
    """A conversation in which ToolSearch loaded three MCP tools."""
    from nb_agent.messages import AssistantMessage, UserMessage, tool_result_message
    from nb_agent.tools.tool_search import ToolSearchOutput, ToolSearchTool

    names = [t.name for t in pool if t.is_mcp][:3]
    if not names:
        return [UserMessage(content="hi")]
    search = ToolSearchTool()
    output = ToolSearchOutput(query="select:" + ",".join(names), matches=names, references=references)
    use = {"type": "tool_use", "id": "toolu_search", "name": "ToolSearch", "input": {"query": output.query}}
    result = tool_result_message("toolu_search", search.map_result_to_block(output, "toolu_search"), tool_use_result=output)
    return [UserMessage(content="hi"), AssistantMessage(content=[use], message_id="msg_1", model="m"), result]


def measure(args: argparse.Namespace) -> dict[str, Any]:
    from nb_agent.agent import builtin_tools
    from nb_agent.tools.pool import assemble_tool_pool
    from nb_agent.tools.tool_pool import ToolPoolProvider

    catalog = json.loads(Path(args.catalog).read_text())
    figures: dict[str, Any] = {}
    for size in SIZES:
        builtins = builtin_tools()
        pool = assemble_tool_pool(builtins, _mcp_tools(catalog, size), lambda tool: False)
        for references in (True, False):
            provider = ToolPoolProvider(builtins=builtins, mode="auto", tool_references=references)
            window = _window_with_discovery(pool, references)
            times = []
            definitions: list[Any] = []
            for _ in range(args.requests):
                window = [*window]  # the loop passes a new list every turn
                started = time.perf_counter()
                definitions = provider.tool_definitions(pool, window)
                times.append(time.perf_counter() - started)
            label = f"{size} MCP tools, {'tool_reference' if references else 'text loading'}"
            figures[f"{label}: first build ms"] = 1000 * times[0]
            figures[f"{label}: build ms"] = 1000 * statistics.median(times)
            figures[f"{label}: tools KB"] = len(json.dumps(definitions)) / 1000
            figures[f"{label}: definitions"] = len(definitions)
            if size == 0:
                break  # nothing to defer: both ways send the same
    return figures


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=20)
    parser.add_argument("--catalog", default=str(DEFAULT_CATALOG))
    main(measure, parser)
