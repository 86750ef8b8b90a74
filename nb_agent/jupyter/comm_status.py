"""Widget updates sent while a ``%%agent`` cell runs reach the kernel whole.

ipywidgets' page side sends a model's state updates one at a time: while one is unanswered,
later ones wait in the page (merged) until the kernel publishes an ``idle`` status whose
parent is the update it sent. ipykernel 7.4 handles comm messages *concurrently* while an
async cell awaits (``dispatch_shell(..., concurrent=True)``) and publishes no status for
them. So once a feedback box had sent its first keystroke, every later keystroke stayed in
the page for the rest of the run, and Deny delivered "K" of "Keep the raw export untouched"
(measured: three updates sent during an awaiting cell, no status message for any of them).

:func:`install` publishes, after each concurrently handled comm message, the ``idle``
ipykernel leaves out, parented to that message: the page then sends what it held, as it
does when the kernel is idle. It changes nothing for messages ipykernel handles in order
(those get their own busy/idle), and it applies to every widget in the notebook, whose
updates the running agent used to hold up just the same.
"""

from __future__ import annotations

import inspect
from typing import Any

_ORIGINAL = "_nb_agent_dispatch_shell"
COMM_MESSAGES = frozenset({"comm_open", "comm_msg", "comm_close"})


def _handles_concurrently(kernel: Any) -> bool:
    dispatch = getattr(type(kernel), "dispatch_shell", None)
    return dispatch is not None and "concurrent" in inspect.signature(dispatch).parameters and hasattr(kernel, "_publish_status")


def install(kernel: Any) -> bool:
    """Wrap ``kernel.dispatch_shell``; returns whether this kernel needed it."""
    if kernel is None or hasattr(kernel, _ORIGINAL) or not _handles_concurrently(kernel):
        return False
    original = kernel.dispatch_shell

    async def dispatch_shell(msg: Any, /, subshell_id: str | None = None, *, concurrent: bool = False) -> None:
        await original(msg, subshell_id=subshell_id, concurrent=concurrent)
        if concurrent:
            # the task runs in its own context, where ipykernel set this message as the parent
            parent = kernel.get_parent("shell")
            if parent.get("header", {}).get("msg_type") in COMM_MESSAGES:
                kernel._publish_status("idle", "shell", parent=parent)

    setattr(kernel, _ORIGINAL, original)
    kernel.dispatch_shell = dispatch_shell
    return True


def uninstall(kernel: Any) -> None:
    original = getattr(kernel, _ORIGINAL, None)
    if original is not None:
        del kernel.dispatch_shell  # the class's method again
        delattr(kernel, _ORIGINAL)
