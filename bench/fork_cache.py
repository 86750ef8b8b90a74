"""Prompt-cache share of three subagents: fork subagents vs today's fresh subagents.

One ``%%agent``-like submission through a real engine with the real built-in tools and
the real ``anthropic`` SDK against ``FakeAnthropicServer`` with its prompt-cache
simulation (breakpoint prefixes, 20-block lookback, minimum length, TTL): the main agent
reads three modules of a small project (three turns), then sends three subagents in one
response (``Agent`` calls without ``subagent_type``), each of which reads a module, greps
and reports (three requests each); the main agent then answers.

Without ``subagent_type`` the baseline (52546bb) starts a general-purpose subagent: its
own system prompt and tool list, a history of one prompt. This tree forks the main agent
(seed 003 §3.7): same system blocks, tools and message prefix, so the subagents' first
requests read the parent's cache. ``--general-purpose`` runs this tree with
``subagent_type: "general-purpose"`` (today's path, kept for typed agents).

Printed, for each version: the subagents' input tokens (fresh + cache writes + cache
reads), the share read from the cache (target: at least 80 % for forks), the share of
their first requests alone, the whole session's share, and the session's cost at Claude
Sonnet 4.6's prices. Tokens are the simulation's estimate (a quarter of each block's
characters), the same for both versions.

    python bench/fork_cache.py            # before (52546bb) and after (this tree)
    python bench/fork_cache.py --only after --general-purpose
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
from pathlib import Path
from typing import Any

from compare import main, module_of_this_tree

MODEL = "claude-sonnet-4-6"
MODULES = 8
SUBAGENTS = 3


def make_project(root: Path) -> None:
    for i in range(MODULES):
        lines = [f'"""Module {i} of the example project."""', ""]
        for j in range(60):
            lines += [f"def function_{i}_{j}(value):", f"    # step {j}: scale and shift", f"    return value * {j} + {i}", ""]
        (root / f"module_{i}.py").write_text("\n".join(lines), encoding="utf-8")


def script(root: Path, subagent_type: str | None) -> Any:
    from nb_agent.testing import Reply, text, tool_use
    from nb_agent.testing.routing import RoutedScript

    def agent(k: int) -> dict[str, Any]:
        spec = {"description": f"check module {k + 3}", "prompt": f"[part{k}] Check module_{k + 3}.py and count its helpers."}
        if subagent_type:
            spec["subagent_type"] = subagent_type
        return tool_use("Agent", spec, id=f"toolu_agent{k}")

    main_turns = [Reply(content=[text("Reading the first modules."), tool_use("Read", {"file_path": str(root / "module_0.py")}, id="toolu_r0")])]
    main_turns += [Reply(content=[tool_use("Read", {"file_path": str(root / f"module_{i}.py")}, id=f"toolu_r{i}")]) for i in (1, 2)]
    main_turns.append(Reply(content=[text("I'll hand the next three modules to subagents."), *(agent(k) for k in range(SUBAGENTS))]))
    main_turns.append(Reply(content=[text("All six modules follow the same scale-and-shift pattern.")]))
    routes: dict[str, list[Any]] = {"": main_turns}
    for k in range(SUBAGENTS):
        module = root / f"module_{k + 3}.py"
        routes[f"[part{k}]"] = [
            Reply(content=[tool_use("Read", {"file_path": str(module)}, id=f"toolu_s{k}_read")]),
            Reply(content=[tool_use("Grep", {"pattern": "def function_", "path": str(module), "output_mode": "count"}, id=f"toolu_s{k}_grep")]),
            Reply(content=[text(f"module_{k + 3}.py defines 60 helpers, all scale-and-shift.")]),
        ]
    return RoutedScript(routes)


def _share(usage: Any) -> float:
    total = usage.context_tokens
    return 100.0 * usage.cache_read_input_tokens / total if total else 0.0


async def run(subagent_type: str | None) -> dict[str, Any]:
    from nb_agent.agent import builtin_tools, create_engine
    from nb_agent.engine import EngineConfig, EngineResult
    from nb_agent.model.pricing import Usage
    from nb_agent.model.transport import AnthropicTransport
    from nb_agent.testing import FakeAnthropicServer

    with tempfile.TemporaryDirectory(prefix="nb_agent-bench-") as tmp:
        root = Path(tmp)
        make_project(root)
        simulator = recording_simulator()
        async with FakeAnthropicServer(script(root, subagent_type), prompt_cache=simulator) as server:
            config = EngineConfig(cwd=root, model=MODEL)
            engine, _ = create_engine(
                config=config, transport=AnthropicTransport(client=server.client()), tools=builtin_tools(), mcp=False,
                permission_mode="bypassPermissions", trust=True,
            )  # fmt: skip
            async for event in engine.submit_message("Look at this project's modules and tell me what they contain."):
                if isinstance(event, EngineResult) and event.is_error:
                    raise SystemExit(f"run failed: {event.error or event.subtype}")
            server.script.assert_exhausted()
            runs = list(engine.tool_session.resources.subagents.runs.values())
            first = first_requests_share(server.script, simulator)
            engine.close()
    subagents = Usage()
    for one in runs:
        subagents = subagents + one.usage
    session = engine.usage.total
    return {
        "subagents' input tokens": subagents.context_tokens,
        "subagents' share read from cache %": round(_share(subagents), 1),
        "subagents' first requests read from cache %": round(first, 1),
        "session input tokens": session.context_tokens,
        "session share read from cache %": round(_share(session), 1),
        "session cost $": round(engine.usage.cost_usd, 4),
    }


def recording_simulator() -> Any:
    """This tree's prompt-cache simulation, keeping each request's body and usage."""
    base = module_of_this_tree("nb_agent/testing/prompt_cache.py").PromptCacheSimulator

    class Recording(base):  # type: ignore[misc, valid-type]
        def __init__(self) -> None:
            super().__init__()
            self.log: list[tuple[dict[str, Any], Any]] = []

        def account(self, body: dict[str, Any]) -> Any:
            usage = super().account(body)
            self.log.append((body, usage))
            return usage

    return Recording()


def first_requests_share(script: Any, simulator: Any) -> float:
    """The cache share of each subagent's first request together."""
    seen: set[str] = set()
    read = total = 0
    for body, usage in simulator.log:
        route = script.route_of(body)
        if not route or route in seen:
            continue
        seen.add(route)
        read += usage.cache_read_input_tokens
        total += usage.input_tokens + usage.cache_creation_input_tokens + usage.cache_read_input_tokens
    return 100.0 * read / total if total else 0.0


def measure(args: argparse.Namespace) -> dict[str, Any]:
    return asyncio.run(run("general-purpose" if args.general_purpose else None))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--general-purpose", action="store_true", help='send subagent_type "general-purpose" (today\'s path)')
    main(measure, parser, targets={"subagents' share read from cache %": ">= 80 (forks)"})
