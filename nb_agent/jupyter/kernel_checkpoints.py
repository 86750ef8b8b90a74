"""The kernel's checkpoints of the agent's work (issue 20): the namespace tracker around
ExecuteCode calls, with its memory budget from ``AgentMagics.checkpoint_memory``."""

from __future__ import annotations

from typing import Any


def namespace_tracker(settings: Any) -> Any:
    """A :class:`~nb_agent.checkpoints.namespace.NamespaceTracker` whose budget follows the setting."""
    from nb_agent.checkpoints.namespace import NamespaceTracker

    return NamespaceTracker(budget=lambda: getattr(settings, "checkpoint_memory", 0) or None)
