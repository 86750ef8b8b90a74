"""What the engine calls at the checkpoints of a run (the store implements it)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol


class RunCheckpoints(Protocol):
    """Called by :class:`~nb_agent.engine.QueryEngine` when a run starts (before its prompt
    joins the conversation), when each later turn starts, and when the run ends. Never
    raises: a checkpoint that cannot be taken is said, and the run goes on."""

    async def run_started(self, engine: Any, prompt: str) -> list[str]:
        """Returns warnings to show (file checkpoints turned off, and why)."""
        ...

    async def turn_started(self, engine: Any) -> None: ...

    def run_ended(self, engine: Any) -> None: ...

    def reset(self, engine: Any) -> None:
        """A new conversation: the checkpoints of the old one no longer apply."""

    def restore(self, engine: Any, entries: Sequence[dict[str, Any]]) -> None:
        """A resumed conversation: its checkpoints, from the transcript's entries."""
