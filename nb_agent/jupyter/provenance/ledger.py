"""Which notebook cell ran as which execution count, as the kernel saw it.

IPython keeps what ran (``In``) but not which cell sent it. JupyterLab and Notebook 7 put the
cell's id in each execute request's metadata (``cellId``), which IPython hands to its
``pre_run_cell`` and ``post_run_cell`` events; the ledger records it from ``%load_ext`` on
(before the cell runs, so the running cell is known too). With it, a count whose
cell was deleted, or whose number another cell now shows, is told apart from a cell edited
since it ran.
"""

from __future__ import annotations

import logging
from typing import Any

from nb_agent.jupyter.provenance.code_names import code_names

log = logging.getLogger(__name__)

MAX_RECORDS = 100_000
"""Counts remembered (the oldest are forgotten first): a long session's ids stay small."""
MAX_READ_AHEAD_CHARS = 50_000
"""A longer input is read when a note needs it, not after the cell runs."""


class CellLedger:
    """Execution count → the id of the cell that ran as it (``None``: not sent by a notebook)."""

    def __init__(self) -> None:
        self.cells: dict[int, str | None] = {}
        self._shell: Any = None

    def install(self, shell: Any) -> None:
        events = getattr(shell, "events", None)
        if events is None or self._shell is not None:
            return
        events.register("pre_run_cell", self._starts)
        events.register("post_run_cell", self._ran)
        self._shell = shell

    def uninstall(self) -> None:
        if self._shell is not None:
            for event, callback in (("pre_run_cell", self._starts), ("post_run_cell", self._ran)):
                try:
                    self._shell.events.unregister(event, callback)
                except ValueError:
                    pass
            self._shell = None

    def _record(self, count: int, info: Any) -> None:
        cell_id = getattr(info, "cell_id", None)
        self.cells[count] = cell_id if isinstance(cell_id, str) and cell_id else None
        if len(self.cells) > MAX_RECORDS:
            del self.cells[next(iter(self.cells))]

    def _starts(self, info: Any) -> None:
        """Before a cell runs: its input will be the history's next entry (IPython versions
        differ on when they count it; ``post_run_cell`` has the count for certain)."""
        manager = getattr(self._shell, "history_manager", None)
        if manager is not None and getattr(info, "store_history", False) and not getattr(info, "silent", False):
            self._record(len(manager.input_hist_raw), info)

    def _ran(self, result: Any) -> None:
        count = getattr(result, "execution_count", None)
        info = getattr(result, "info", None)
        if not isinstance(count, int) or info is None or not getattr(info, "store_history", False):
            return
        self._record(count, info)
        parsed = getattr(info, "transformed_cell", None)
        if isinstance(parsed, str) and len(parsed) <= MAX_READ_AHEAD_CHARS:
            try:
                code_names(parsed.rstrip("\n"))  # as the history keeps it: the note finds it cached
            except Exception:
                log.debug("reading an input's names failed", exc_info=True)

    def covers(self, count: int) -> bool:
        """Whether ``count`` ran while the ledger was recording."""
        return count in self.cells
