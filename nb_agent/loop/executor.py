"""StreamingToolExecutor (SPEC §3): the one scheduler of a turn's tool calls.

With streaming tool execution a tool starts at its block's ``content_block_stop``, while
the model is still streaming; without it the loop adds the turn's blocks once the stream
has ended. Either way the same rules hold. Each tool goes ``queued → executing →
completed → yielded``; the queue is cut at unsafe calls (barriers): consecutive
concurrency-safe tools run together (up to the concurrency cap), an unsafe tool runs
alone, and nothing overtakes a queued unsafe tool. Results come out strictly in the order
the tool_use blocks arrived; progress comes out at once. A failing Bash call aborts its
running siblings through a child abort controller (not the whole run); an unsafe tool's
context modifier applies to the tools after it and to the next turn.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from nb_agent.abort import AbortController
from nb_agent.loop.pipeline import ToolRunDeps, ToolUpdate, no_such_tool_message, run_tool_use
from nb_agent.messages import INTERRUPT_MESSAGE, ContentBlock, error_tool_result
from nb_agent.tools.base import Tool, ToolUseContext, find_tool

DEFAULT_MAX_TOOL_CONCURRENCY = 10
MAX_TOOL_CONCURRENCY_ENVS = ("NB_AGENT_MAX_TOOL_CONCURRENCY", "CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY")
"""nb_agent's own variable first, then Claude Code's (as for the model: NB_AGENT_MODEL, ANTHROPIC_MODEL)."""

ToolStatus = Literal["queued", "executing", "completed", "yielded"]


def max_tool_concurrency() -> int:
    """The cap on concurrently running safe tools (``NB_AGENT_MAX_TOOL_CONCURRENCY``, else
    Claude Code's ``CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY``, else 10)."""
    raw = next((os.environ[name] for name in MAX_TOOL_CONCURRENCY_ENVS if os.environ.get(name)), None)
    try:
        value = int(raw) if raw is not None else DEFAULT_MAX_TOOL_CONCURRENCY
    except ValueError:
        return DEFAULT_MAX_TOOL_CONCURRENCY
    return max(1, value)


def concurrency_safe(tool: Tool[Any] | None, raw_input: Any) -> bool:
    """Computed from the validated input; any failure means unsafe (fail closed)."""
    if tool is None:
        return False
    try:
        return bool(tool.is_concurrency_safe(tool.parse_input(raw_input)))
    except Exception:  # noqa: BLE001 - fail closed: whatever went wrong, the call runs alone
        return False


@dataclass(kw_only=True)
class TrackedTool:
    block: ContentBlock
    tool: Tool[Any] | None
    is_concurrency_safe: bool
    status: ToolStatus = "queued"
    task: asyncio.Task[None] | None = None
    results: list[ToolUpdate] = field(default_factory=list)
    pending_progress: list[ToolUpdate] = field(default_factory=list)

    @property
    def id(self) -> str:
        return self.block["id"]


class StreamingToolExecutor:
    """Runs tool_use blocks as they arrive and hands back their updates in order."""

    def __init__(self, *, ctx: ToolUseContext, deps: ToolRunDeps, max_concurrency: int | None = None) -> None:
        self._ctx = ctx
        self._deps = deps
        self._max_concurrency = max_concurrency or max_tool_concurrency()
        self._run_abort = ctx.abort_controller
        self._sibling: AbortController | None = None
        """Made when the first tool starts, detached from the run's controller by :meth:`close`."""
        self._tools: list[TrackedTool] = []
        self._changed = asyncio.Event()
        self._discarded = False
        self.prevent_continuation = False

    # --- state ---------------------------------------------------------------------------
    @property
    def context(self) -> ToolUseContext:
        """The tool context after the context modifiers of completed unsafe tools."""
        return self._ctx

    @property
    def tracked(self) -> list[TrackedTool]:
        return list(self._tools)

    @property
    def interruptible(self) -> bool:
        """True when every executing tool would be cancelled (not finished) by an interrupt."""
        executing = [t for t in self._tools if t.status == "executing"]
        return all(t.tool is not None and t.tool.interrupt_behavior() == "cancel" for t in executing)

    def _can_execute(self, is_safe: bool) -> bool:
        executing = [t for t in self._tools if t.status == "executing"]
        if not executing:
            return True
        return is_safe and all(t.is_concurrency_safe for t in executing) and len(executing) < self._max_concurrency

    # --- input -----------------------------------------------------------------------------
    def add_tool(self, block: ContentBlock) -> None:
        """Queue a complete tool_use block (called at its ``content_block_stop``)."""
        if self._discarded:
            return
        tool = find_tool(self._ctx.tools, block["name"])
        tracked = TrackedTool(block=block, tool=tool, is_concurrency_safe=concurrency_safe(tool, block.get("input")))
        self._tools.append(tracked)
        if tool is None:
            tracked.results.append(
                ToolUpdate(message=error_tool_result(tracked.id, no_such_tool_message(block["name"])), is_error=True)
            )
            tracked.status = "completed"
        self._process_queue()

    def discard(self) -> None:
        """Drop everything (fallback model switch): cancel running tools, yield nothing more."""
        self._discarded = True
        for t in self._tools:
            if t.task is not None and not t.task.done():
                t.task.cancel()
        self._changed.set()
        self.close()

    def close(self) -> None:
        """Stop following the run's abort: the turn's tools are all done (or dropped).

        Without it the run's controller would hold every turn's sibling controller until the
        run ends. Idempotent; a tool started afterwards gets a new sibling controller.
        """
        sibling, self._sibling = self._sibling, None
        if sibling is not None:
            sibling.detach()

    # --- scheduling -------------------------------------------------------------------------
    def _process_queue(self) -> None:
        for t in self._tools:
            if t.status != "queued":
                continue
            if self._can_execute(t.is_concurrency_safe):
                self._start(t)
            elif not t.is_concurrency_safe:
                break  # an unsafe tool waits its turn; nothing behind it may overtake

    def _start(self, t: TrackedTool) -> None:
        t.status = "executing"
        controller, unlink = self._tool_abort()
        t.task = asyncio.ensure_future(self._run(t, self._ctx.with_abort(controller), unlink))

    @property
    def _sibling_abort(self) -> AbortController:
        """Aborts the turn's running tools together (a failed Bash call stops its siblings)."""
        if self._sibling is None:
            self._sibling = self._run_abort.child()
        return self._sibling

    def _tool_abort(self) -> tuple[AbortController, Callable[[], None]]:
        """A tool's own controller: aborted with its siblings; its own abort (a denial that
        interrupts, a tool stopping the run) stops the whole run. Also returns what undoes
        both links once the call is done: they would keep the call, and through
        ``bubble_up`` this executor, reachable from the run's controller in a cycle."""
        sibling = self._sibling_abort
        controller = sibling.child()

        def bubble_up(reason: str) -> None:
            if not (sibling.signal.aborted or self._run_abort.signal.aborted or self._discarded):
                self._run_abort.abort(reason)

        remove_bubble_up = controller.signal.add_callback(bubble_up)

        def unlink() -> None:
            remove_bubble_up()
            controller.detach()

        return controller, unlink

    async def _run(self, t: TrackedTool, ctx: ToolUseContext, unlink: Callable[[], None]) -> None:
        try:
            async for update in run_tool_use(t.block, ctx, self._deps):
                if update.message.type == "progress":
                    t.pending_progress.append(update)
                else:
                    t.results.append(update)
                    self._after_result(t, update)
                self._changed.set()
        except asyncio.CancelledError:
            if not any(u.message.type == "user" and u.message.source_tool_use_id == t.id for u in t.results):
                t.results.append(ToolUpdate(message=error_tool_result(t.id, self._abort_reason()), is_error=True))
            if not self._discarded:
                raise
        except Exception as exc:  # noqa: BLE001 - the pipeline turns tool errors into results; this is a bug guard
            t.results.append(ToolUpdate(message=error_tool_result(t.id, f"Error: {type(exc).__name__}: {exc}"), is_error=True))
        finally:
            unlink()
            t.status = "completed"
            self._changed.set()
            if not self._discarded:
                self._process_queue()

    def _after_result(self, t: TrackedTool, update: ToolUpdate) -> None:
        if update.prevent_continuation:
            self.prevent_continuation = True
        if update.context_modifier is not None and not t.is_concurrency_safe:
            self._ctx = update.context_modifier(self._ctx)
        if update.is_error and t.tool is not None and t.tool.name == "Bash" and update.message.type == "user":
            command = str((t.block.get("input") or {}).get("command", ""))[:40]
            self._sibling_abort.abort(f"Cancelled: parallel tool call Bash({command}) errored")

    def _abort_reason(self) -> str:
        return (self._sibling.signal.reason if self._sibling is not None else None) or INTERRUPT_MESSAGE

    # --- output --------------------------------------------------------------------------------
    def get_completed_results(self) -> list[ToolUpdate]:
        """Everything ready now, without waiting: all pending progress, then results in order."""
        if self._discarded:
            return []
        out: list[ToolUpdate] = []
        for t in self._tools:
            out.extend(t.pending_progress)
            t.pending_progress.clear()
        for t in self._tools:
            if t.status == "yielded":
                continue
            if t.status != "completed":
                break
            out.extend(t.results)
            t.status = "yielded"
        return out

    async def get_remaining_results(self) -> AsyncIterator[ToolUpdate]:
        """Wait for every queued and running tool; yield their updates in order."""
        while not self._discarded:
            self._changed.clear()
            self._process_queue()
            for update in self.get_completed_results():
                yield update
            if all(t.status == "yielded" for t in self._tools):
                self.close()
                return
            await self._changed.wait()

    def missing_results(self) -> list[str]:
        """Ids of queued tools that never produced a tool_result (for the invariant check)."""
        return [
            t.id
            for t in self._tools
            if not any(u.message.type == "user" and u.message.source_tool_use_id == t.id for u in t.results)
        ]
