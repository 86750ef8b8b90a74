"""A notebook page that opens while a run goes on (the user reloaded it, or closed the tab
and came back) gets the run's live view back, pending asks included, and the run's end.

JupyterLab shows a cell's outputs in the page that sent its execute request, by that
request's id: a reloaded page is a new page, so the running cell shows nothing there (or a
live view saved by autosave, which it cannot update), no Allow is anywhere, and later cells
queue behind an ask nobody sees. The kernel still has everything: the run's widgets (a
reloaded page's widget manager fetches their state over its control comm, a comm message,
which ipykernel handles while the cell runs; the page's kernel_info request, a plain shell
message, waits until the cell ends) and the cell's id (the execute request's ``cellId``).

So, on the page's own live-notebook comm (``labextension/PROTOCOL.md``, ``run_view``): a page
that opens during a run is sent the running cell's id and the view's output, which it puts in
that cell unless the cell shows it already; when the run ends, the pages that opened during
it (and any that open later, for the last few runs) are sent what the run left below the
cell, which replaces the view wherever a page still shows it.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from nb_agent.jupyter.live.hub import LiveChannel, LiveHub

WIDGET_VIEW_MIME = "application/vnd.jupyter.widget-view+json"
RECENT_RUNS = 4
"""Ended runs whose outputs a page opening later is still sent (it replaces a dead live view
that autosave kept in the file)."""


def display_output(bundle: dict[str, Any]) -> dict[str, Any]:
    """``bundle`` as a notebook output (nbformat ``display_data``)."""
    return {"output_type": "display_data", "data": bundle, "metadata": {}}


@dataclass(kw_only=True)
class ShownRun:
    """One run's live view, as the pages must be given it."""

    cell_id: str
    model_id: str
    """The live view's root widget (how a page recognises the view among a cell's outputs)."""
    view: dict[str, Any]
    """The live view as an output."""
    outputs: list[dict[str, Any]] | None = None
    """What the run left below the cell, once it has ended."""
    late_pages: list[str] = field(default_factory=list)
    """The comms of pages that opened while it ran (they are sent its end)."""

    def message(self) -> dict[str, Any]:
        from nb_agent.jupyter.live.protocol import RunView

        if self.outputs is None:
            return RunView(phase="live", cell_id=self.cell_id, model_id=self.model_id, outputs=[self.view]).model_dump(mode="json")
        return RunView(phase="ended", cell_id=self.cell_id, model_id=self.model_id, outputs=self.outputs).model_dump(mode="json")


class RunViews:
    """The running cell's view and the last few ended ones, for pages that (re)connect."""

    def __init__(self, hub: LiveHub) -> None:
        self.hub = hub
        self.running: ShownRun | None = None
        self.ended: deque[ShownRun] = deque(maxlen=RECENT_RUNS)
        hub.on_opened = self._page_opened

    def started(self, *, cell_id: str | None, model_id: str | None, view: dict[str, Any]) -> None:
        """A run showed its live view ``view`` (a MIME bundle) in the cell ``cell_id``."""
        self.running = ShownRun(cell_id=cell_id, model_id=model_id, view=display_output(view)) if cell_id and model_id else None

    def finished(self, outputs: list[dict[str, Any]]) -> None:
        """The run ended and left ``outputs`` (nbformat) below its cell: pages that opened during it get them."""
        self._ended(outputs, every_page=False)

    def stopped(self, bundles: list[dict[str, Any]]) -> None:
        """The kernel is going (a restart or a shutdown) and the run ended with ``bundles``:
        every page is sent them, the one that ran the cell too. JupyterLab's own Restart
        forgets the running cell's display id before it asks the server to restart, so the
        cell's display update is dropped in that page; its live-notebook handler still sees
        this message (``labextension/src/page.ts``, ``ended after a restart``)."""
        self._ended([display_output(bundle) for bundle in bundles], every_page=True)

    def _ended(self, outputs: list[dict[str, Any]], *, every_page: bool) -> None:
        run, self.running = self.running, None
        if run is None:
            return
        run.outputs = outputs
        self.ended.append(run)
        for channel in self.hub.connected:
            if every_page or channel.comm_id in run.late_pages:
                channel.send(run.message())

    def abandon(self) -> None:
        """The run ended without :meth:`finished` (it failed): no page is given its dead view."""
        self.running = None

    def _page_opened(self, channel: LiveChannel) -> None:
        for run in self.ended:
            channel.send(run.message())
        if self.running is not None:
            self.running.late_pages.append(channel.comm_id)
            channel.send(self.running.message())
