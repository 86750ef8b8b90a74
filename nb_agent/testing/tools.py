"""Small tools for testing loops, executors and permission flows.

``FunctionTool`` wraps an async function; ``RecordingTool`` records every call with its
start and end times, optionally sleeping, failing or reporting progress as told by its
input. Both let users test their own hooks and permission callbacks too.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from pydantic import BaseModel, Field

from nb_agent.errors import ToolError
from nb_agent.tools.base import InterruptBehavior, ProgressCallback, Tool, ToolResult, ToolUseContext


class RecordingInput(BaseModel):
    value: str = Field(default="", description="Echoed back.")
    sleep: float = Field(default=0.0, description="Seconds to sleep before answering.")
    fail: bool = Field(default=False, description="Raise a ToolError.")
    crash: bool = Field(default=False, description="Raise a RuntimeError (a bug).")
    progress: int = Field(default=0, description="Progress reports to send.")
    meet: int = Field(
        default=0,
        description=(
            "Wait until this many calls of this tool are running at once (at most MEET_TIMEOUT_S): "
            "concurrency shown as an event, not as overlapping sleeps a loaded machine can pull apart."
        ),
    )
    gated: bool = Field(default=False, description="Wait until the test opens the tool's ``gate`` (an event, not a sleep).")


@dataclass(kw_only=True)
class CallRecord:
    tool: str
    value: str
    started: float
    ended: float | None = None
    cancelled: bool = False
    met: bool = False
    """With ``meet``: the other calls arrived while this one was running."""


MEET_TIMEOUT_S = 30.0
"""Generous: only separates "ran together" from "ran one after another"."""


class RecordingTool(Tool[RecordingInput]):
    """Echoes ``value``; records calls; behaviour steered by its input."""

    input_model: ClassVar[type[BaseModel]] = RecordingInput

    def __init__(
        self,
        name: str = "Echo",
        *,
        concurrency_safe: bool = True,
        read_only: bool = True,
        interrupt: InterruptBehavior = "cancel",
        max_result_size_chars: float | None = None,
    ) -> None:
        self.name = name  # type: ignore[misc]
        self._safe = concurrency_safe
        self._read_only = read_only
        self._interrupt: InterruptBehavior = interrupt
        if max_result_size_chars is not None:
            self.max_result_size_chars = max_result_size_chars  # type: ignore[misc]
        self.calls: list[CallRecord] = []
        self.started = asyncio.Event()
        """Set when a call starts: tests act on it rather than after a guessed delay."""
        self.gate = asyncio.Event()
        """Calls with ``gated`` wait until the test sets it."""
        self._running = 0
        self._most_running = 0
        self._arrivals = asyncio.Condition()

    def prompt(self) -> str:
        return f"{self.name}: echoes its input (test tool)."

    def is_concurrency_safe(self, input: RecordingInput) -> bool:
        return self._safe

    def is_read_only(self, input: RecordingInput) -> bool:
        return self._read_only

    def interrupt_behavior(self) -> InterruptBehavior:
        return self._interrupt

    async def _meet(self, count: int) -> bool:
        async with self._arrivals:
            self._most_running = max(self._most_running, self._running)
            self._arrivals.notify_all()
            try:
                await asyncio.wait_for(self._arrivals.wait_for(lambda: self._most_running >= count), MEET_TIMEOUT_S)
            except asyncio.TimeoutError:  # a distinct class on Python 3.10
                return False
            return True

    async def call(self, input: RecordingInput, ctx: ToolUseContext, on_progress: ProgressCallback) -> ToolResult:
        record = CallRecord(tool=self.name, value=input.value, started=time.monotonic())
        self.calls.append(record)
        self.started.set()
        self._running += 1
        try:
            if input.meet:
                record.met = await self._meet(input.meet)
            for i in range(input.progress):
                on_progress({"step": i + 1, "of": input.progress})
                await asyncio.sleep(0)
            if input.sleep:
                await asyncio.sleep(input.sleep)
            if input.gated:
                await self.gate.wait()
        except asyncio.CancelledError:
            record.cancelled = True
            raise
        finally:
            self._running -= 1
            record.ended = time.monotonic()
        if input.crash:
            raise RuntimeError(f"{self.name} crashed")
        if input.fail:
            raise ToolError(f"{self.name} failed on {input.value!r}")
        return ToolResult(data=f"{self.name}: {input.value}")


class FunctionTool(Tool[Any]):
    """A tool made from ``async def fn(input_model_instance, ctx) -> Any``."""

    def __init__(
        self,
        name: str,
        fn: Callable[[Any, ToolUseContext], Awaitable[Any]],
        input_model: type[BaseModel],
        *,
        description: str = "",
        read_only: bool = False,
        concurrency_safe: bool = False,
    ) -> None:
        self.name = name  # type: ignore[misc]
        self.input_model = input_model  # type: ignore[misc]
        self._fn = fn
        self._description = description or name
        self._read_only = read_only
        self._safe = concurrency_safe

    def prompt(self) -> str:
        return self._description

    def is_read_only(self, input: Any) -> bool:
        return self._read_only

    def is_concurrency_safe(self, input: Any) -> bool:
        return self._safe

    async def call(self, input: Any, ctx: ToolUseContext, on_progress: ProgressCallback) -> ToolResult:
        result = await self._fn(input, ctx)
        return result if isinstance(result, ToolResult) else ToolResult(data=result)
