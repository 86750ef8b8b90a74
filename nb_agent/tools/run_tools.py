"""The batch tool runner (SPEC §3): used when tools run after the stream ends.

The calls are partitioned into maximal runs of consecutive concurrency-safe calls (run in
parallel, at most the concurrency cap at once) and single unsafe calls (run alone);
batches run in order, and results come out in the calls' order.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass

from nb_agent.messages import ContentBlock
from nb_agent.tools.base import ToolUseContext, find_tool
from nb_agent.tools.executor import concurrency_safe, max_tool_concurrency
from nb_agent.tools.pipeline import ToolRunDeps, ToolUpdate, run_tool_use


@dataclass(frozen=True, kw_only=True)
class ToolBatch:
    is_concurrency_safe: bool
    blocks: list[ContentBlock]


def partition_tool_calls(blocks: Sequence[ContentBlock], ctx: ToolUseContext) -> list[ToolBatch]:
    batches: list[ToolBatch] = []
    for block in blocks:
        safe = concurrency_safe(find_tool(ctx.tools, block["name"]), block.get("input"))
        if safe and batches and batches[-1].is_concurrency_safe:
            batches[-1].blocks.append(block)
        else:
            batches.append(ToolBatch(is_concurrency_safe=safe, blocks=[block]))
    return batches


async def _run_serially(block: ContentBlock, ctx: ToolUseContext, deps: ToolRunDeps) -> AsyncIterator[ToolUpdate]:
    async for update in run_tool_use(block, ctx, deps):
        yield update


async def _run_concurrently(
    blocks: list[ContentBlock], ctx: ToolUseContext, deps: ToolRunDeps, limit: int
) -> AsyncIterator[ToolUpdate]:
    semaphore = asyncio.Semaphore(limit)
    queue: asyncio.Queue[tuple[int, ToolUpdate | None]] = asyncio.Queue()
    buffered: dict[int, list[ToolUpdate]] = {i: [] for i in range(len(blocks))}

    async def run(index: int, block: ContentBlock) -> None:
        async with semaphore:
            try:
                async for update in run_tool_use(block, ctx, deps):
                    await queue.put((index, update))
            finally:
                await queue.put((index, None))

    tasks = [asyncio.ensure_future(run(i, b)) for i, b in enumerate(blocks)]
    try:
        finished = 0
        while finished < len(blocks):
            index, update = await queue.get()
            if update is None:
                finished += 1
            elif update.message.type == "progress":
                yield update  # progress first, immediately
            else:
                buffered[index].append(update)
        for index in range(len(blocks)):
            for update in buffered[index]:
                yield update
    finally:
        for task in tasks:
            task.cancel()


async def run_tools(
    blocks: Sequence[ContentBlock], ctx: ToolUseContext, deps: ToolRunDeps
) -> AsyncIterator[tuple[ToolUpdate, ToolUseContext]]:
    """Run every call; yields ``(update, context)`` where context reflects applied modifiers."""
    limit = max_tool_concurrency()
    for batch in partition_tool_calls(blocks, ctx):
        if batch.is_concurrency_safe:
            async for update in _run_concurrently(batch.blocks, ctx, deps, limit):
                yield update, ctx
        else:
            async for update in _run_serially(batch.blocks[0], ctx, deps):
                if update.context_modifier is not None:
                    ctx = update.context_modifier(ctx)
                yield update, ctx


__all__ = ["ToolBatch", "partition_tool_calls", "run_tools"]
