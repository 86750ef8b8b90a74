"""A test double for the retry policy's sleep."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field


@dataclass(kw_only=True)
class RetryRecorder:
    """A ``sleep`` for ``RetryPolicy(sleep=...)``: records the delays, never waits."""

    delays: list[float] = field(default_factory=list)

    async def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)
        await asyncio.sleep(0)
