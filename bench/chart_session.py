"""Charts in a long data-science session: request bytes, image blocks, upload, cache share.

One ``%%agent`` cell in which the model calls ExecuteCode ``--charts`` times in a row, each
call drawing a matplotlib chart (a 2,000-point scatter with a fitted line, 8×5 inches at
100 dpi: about 95 KB of PNG), then answers. ExecuteCode runs in an in-process IPython
shell; the engine talks through the real ``anthropic`` SDK to the fake Messages API
server with its prompt-cache simulation. Every request's bytes on the wire are counted
(an httpx request hook) and its image blocks are counted in the body the server got.

Printed: bytes and image blocks of the 31st request (after 30 charts), total upload and
the largest request over the whole cell, the upload of the first 25 and 50 requests (so
linear vs quadratic growth shows: quadratic makes 50 cost 4× 25, linear 2×), and the share
of input tokens served from the prompt cache.

    python bench/chart_session.py [--charts 100]
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
from pathlib import Path
from typing import Any

from compare import main, module_of_this_tree

MODEL = "claude-sonnet-4-6"
CHART_CODE = """\
import numpy as np, matplotlib.pyplot as plt
rng = np.random.default_rng({seed})
x = rng.normal(size=2000); y = 0.5 * x + rng.normal(size=2000)
fig, ax = plt.subplots(figsize=(8, 5))
ax.scatter(x, y, s=8, alpha=0.5, label="week {seed}")
xs = np.linspace(-3, 3, 100); ax.plot(xs, 0.5 * xs, color="C1", label="fit")
ax.set_title("Revenue vs ad spend, week {seed}"); ax.legend(); ax.grid(True)
"""


def _image_blocks(body: dict[str, Any]) -> int:
    count = 0
    for message in body.get("messages", []):
        content = message.get("content")
        for block in content if isinstance(content, list) else []:
            if block.get("type") == "image":
                count += 1
            inner = block.get("content") if block.get("type") == "tool_result" else None
            count += sum(1 for b in inner if isinstance(b, dict) and b.get("type") == "image") if isinstance(inner, list) else 0
    return count


class ChartModel:
    """Calls ExecuteCode ``charts`` times, then answers; notes each request's images."""

    def __init__(self, charts: int, server: Any) -> None:
        self.charts = charts
        self.server = server
        self.calls = 0
        self.compactions = 0
        self.images: list[int] = []

    def __call__(self, body: dict[str, Any]) -> Any:
        from nb_agent.context.compact import SUMMARY_SYSTEM_PROMPT
        from nb_agent.testing import Reply, text, tool_use

        if body.get("system") == SUMMARY_SYSTEM_PROMPT:
            self.compactions += 1
            return Reply(content=[text(f"<summary>Drew {self.calls} weekly charts so far.</summary>")], model=MODEL)
        self.images.append(_image_blocks(body))
        self.server.requests.clear()  # the fake server keeps every body: hundreds of MB here
        if self.calls < self.charts:
            self.calls += 1
            code = CHART_CODE.format(seed=self.calls)
            return Reply(content=[tool_use("ExecuteCode", {"code": code, "description": f"chart {self.calls}"})], model=MODEL)
        return Reply(content=[text(f"Drew {self.calls} charts.")], model=MODEL)


async def run(charts: int) -> dict[str, Any]:
    import matplotlib

    matplotlib.use("Agg")
    from IPython.core.interactiveshell import InteractiveShell

    from nb_agent.engine import EngineConfig, QueryEngine
    from nb_agent.jupyter.tools import ExecuteCode
    from nb_agent.jupyter.tools.bridge import KernelBridge
    from nb_agent.model.transport import AnthropicTransport
    from nb_agent.testing import FakeAnthropicServer

    shell = InteractiveShell.instance()
    sizes: list[int] = []

    async def count(request: Any) -> None:
        if request.url.path.endswith("/messages"):
            sizes.append(len(request.content))

    with tempfile.TemporaryDirectory() as tmp:
        simulator = module_of_this_tree("nb_agent/testing/prompt_cache.py").PromptCacheSimulator()
        async with FakeAnthropicServer([], prompt_cache=simulator) as server:
            model = ChartModel(charts, server)
            server.script.add(*[model] * (charts + 20))
            import anthropic

            http = anthropic.DefaultAsyncHttpxClient(event_hooks={"request": [count]})
            client = server.client(http_client=http)
            engine = QueryEngine(
                config=EngineConfig(cwd=Path(tmp), model=MODEL),
                tools=[ExecuteCode(KernelBridge(shell=shell))],
                transport=AnthropicTransport(client=client),
            )
            result = None
            async for event in engine.submit_message("Draw the weekly revenue charts, one per week."):
                if getattr(event, "type", None) == "result":
                    result = event
            engine.close()
    assert result is not None and result.subtype == "success", result
    usage = result.usage
    total_input = usage.input_tokens + usage.cache_read_input_tokens + usage.cache_creation_input_tokens
    figures: dict[str, Any] = {
        "requests": len(sizes),
        "31st request KB": sizes[30] / 1000 if len(sizes) > 30 else "-",
        "31st request image blocks": model.images[30] if len(model.images) > 30 else "-",
        "largest request KB": max(sizes) / 1000,
        "most image blocks in a request": max(model.images),
        "upload, first 25 requests MB": sum(sizes[:25]) / 1e6,
        "upload, first 50 requests MB": sum(sizes[:50]) / 1e6,
        f"upload, all {len(sizes)} requests MB": sum(sizes) / 1e6,
        "input served from cache %": 100 * usage.cache_read_input_tokens / total_input if total_input else 0.0,
        "cache writes (tokens)": usage.cache_creation_input_tokens,
        "compactions": model.compactions,
    }
    return figures


def measure(args: argparse.Namespace) -> dict[str, Any]:
    return asyncio.run(run(args.charts))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--charts", type=int, default=100)
    main(
        measure,
        parser,
        targets={
            "31st request KB": "<= 1,500",
            "31st request image blocks": "<= 8",
            "upload, first 50 requests MB": "~2x the first 25 (linear)",
        },
    )
