"""The run card: below a run that changed something, what it changed and how to undo it.

One output whose bundle carries ``application/vnd.nb-agent.rewind+json`` (the nb-agent-live
extension renders it with a **Rewind this run** button that asks the kernel for a preview,
shows it for a confirmation and then rewinds; see ``labextension/PROTOCOL.md``), and HTML
and plain text naming the ``%agent rewind`` command (what a notebook shows without the
extension, under nbclient, or from an untrusted file).
"""

from __future__ import annotations

from typing import Any

from nb_agent.jupyter.html import el

REWIND_MIME = "application/vnd.nb-agent.rewind+json"
REWIND_VERSION = 1


def rewind_bundle(*, checkpoint_id: str, prompt: str, changes: list[str]) -> dict[str, Any]:
    """The card's MIME bundle. ``prompt`` (the run's, as the checkpoint keeps it) lets the
    kernel refuse a card of another conversation whose run had the same number; it is the
    same each time the notebook runs, so saved outputs stay stable."""
    summary = " · ".join(changes)
    command = f"%agent rewind {checkpoint_id}"
    return {
        REWIND_MIME: {"version": REWIND_VERSION, "checkpoint_id": checkpoint_id, "prompt": prompt, "changes": changes},
        "text/html": el("div", "This run changed ", summary, ". ", el("code", command), " undoes it.", cls="nb-agent-rewind"),
        "text/plain": f"This run changed {summary}. {command} undoes it.",
    }
