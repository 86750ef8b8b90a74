"""After a kernel restart, the agent is told that the variables of its earlier turns are gone.

Each run leaves an entry in the conversation's transcript naming this kernel process and the
user's variables then. When a conversation is resumed in another process (the kernel
restarted, or another kernel resumed it), its next run starts with a notice naming those
variables: the model otherwise assumes they still exist.
"""

from __future__ import annotations

import uuid
from typing import Any

KERNEL_PROCESS = uuid.uuid4().hex
"""This kernel process (a restart starts a new one; Jupyter's kernel id stays the same)."""
KERNEL_ENTRY = "kernel"
MAX_NAMES = 40


def kernel_entry(variables: list[str]) -> dict[str, Any]:
    """The transcript entry's payload: this process and the variables' names (bounded)."""
    return {"process": KERNEL_PROCESS, "variables": variables[:MAX_NAMES], "more_variables": max(0, len(variables) - MAX_NAMES)}


def restart_notice(entries: list[dict[str, Any]], *, now: set[str]) -> str | None:
    """The notice for a conversation whose last :data:`KERNEL_ENTRY` ``entries`` name another
    process (``None`` when it ran here, or never recorded one); ``now``: the variables this
    kernel has (those are not said to be gone)."""
    if not entries or entries[-1].get("process") in (None, KERNEL_PROCESS):
        return None
    last = entries[-1]
    names = [n for n in last.get("variables") or [] if isinstance(n, str)]
    gone = [n for n in names if n not in now]
    more = int(last.get("more_variables") or 0)
    text = (
        "The kernel restarted since this conversation's last turn (or the conversation was resumed in another kernel): "
        "every variable your earlier turns made or saw is gone unless code ran again in this kernel since"
    )
    if gone:
        listed = ", ".join(gone) + (f" and {more} more" if more else "")
        text += f"; gone now: {listed}"
    text += (
        ". The notebook's outputs and execution counts are from the old kernel. Check what exists (InspectVariables) "
        "before using a variable, and run the cells (or ExecuteCode) that make what you need."
    )
    return text
