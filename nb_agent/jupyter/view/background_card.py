"""The card of a background subagent: displayed in the cell that started it, and kept up
to date (by display id) after that cell ends, until the subagent finishes.

No widgets: the cell's widgets close when it ends, while this card must live on. Updates
are paced (at most one per :data:`UPDATE_INTERVAL_S`) and scheduled on the event loop, so
a chatty subagent does not flood the frontend.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from nb_agent.jupyter.html import el, markdown_source
from nb_agent.jupyter.view.run_state import RunState
from nb_agent.jupyter.view.subagent import SubagentView
from nb_agent.jupyter.view.subagent_card import (
    live_subagent_html,
    static_html,
    static_markdown,
    static_plain,
    static_summary,
)

log = logging.getLogger(__name__)

UPDATE_INTERVAL_S = 0.5


def background_bundle(view: SubagentView) -> dict[str, str]:
    """The card of a background agent: live while it runs, its static form once it ended."""
    if not view.finished:
        return {"text/html": live_subagent_html(view), "text/plain": f"Agent {static_summary(view)}"}
    line = f"Background agent {static_summary(view)}"
    return {
        "text/html": el("div", el("p", line), static_html(view), cls="nb-agent-result"),
        "text/markdown": markdown_source(f"- **{line}**\n{static_markdown(view)}"),
        "text/plain": f"{line}\n{static_plain(view)}",
    }


class BackgroundAgentCard:
    def __init__(self, run: Any) -> None:
        from IPython.display import display

        self.view = SubagentView.for_run(run, state=RunState(model=run.model))
        self.updates = 0
        self._loop = asyncio.get_running_loop()
        self._pending: asyncio.TimerHandle | None = None
        self.handle = display(self.bundle(), raw=True, display_id=True)
        run.listeners.append(self._on_event)

    def bundle(self) -> dict[str, str]:
        return background_bundle(self.view)

    def _on_event(self, event: Any) -> None:
        self.view.take(event)
        if self.view.finished:
            self._flush()
        elif self._pending is None:
            self._pending = self._loop.call_later(UPDATE_INTERVAL_S, self._flush)

    def _flush(self) -> None:
        if self._pending is not None:
            self._pending.cancel()
            self._pending = None
        if self.handle is None:  # no IPython display here: nothing to update
            return
        try:
            self.handle.update(self.bundle(), raw=True)
            self.updates += 1
        except Exception:  # the agent goes on even if its card cannot be drawn
            log.debug("background card update failed", exc_info=True)
