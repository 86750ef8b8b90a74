"""Hooks that must not hold anything up (Notification): run as tasks, notices kept for later.

A notifier that takes two seconds to reach a chat service must not delay the approval
card it announces. Their warnings and messages are collected; the session yields them
with its next event.
"""

from __future__ import annotations

import asyncio
from typing import Any

from nb_agent.hooks.effects import hook_notices
from nb_agent.hooks.registry import Hooks
from nb_agent.hooks.types import HookEvent, HookInput
from nb_agent.messages import SystemMessage


class BackgroundHooks:
    """Fire-and-collect runner for one session's hooks."""

    def __init__(self, hooks: Hooks) -> None:
        self.hooks = hooks
        self._tasks: set[asyncio.Task[Any]] = set()
        self._notices: list[SystemMessage] = []

    def fire(self, event: HookEvent, hook_input: HookInput) -> None:
        """Start ``event``'s hooks now (needs a running loop); returns at once."""
        if not self.hooks.has(event):
            return
        task = asyncio.ensure_future(self._run(event, hook_input))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _run(self, event: HookEvent, hook_input: HookInput) -> None:
        result = await self.hooks.run(event, hook_input)
        self._notices += hook_notices(result, event)

    def take_notices(self) -> list[SystemMessage]:
        notices, self._notices = self._notices, []
        return notices

    @property
    def pending(self) -> int:
        return len(self._tasks)

    async def wait(self, timeout: float | None = None) -> None:
        """Wait for the hooks still running (tests, shutdown), at most ``timeout`` seconds."""
        if self._tasks:
            await asyncio.wait(set(self._tasks), timeout=timeout)
