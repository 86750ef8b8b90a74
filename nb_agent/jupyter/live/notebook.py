"""The kernel's live-notebook mode: decides per run whether the agent works on the page's
live document or, without the extension, on the file as before; says which and why.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nb_agent.jupyter.live.address import WORKING_DIR_ENV, NotebookAddress
from nb_agent.jupyter.live.hub import LiveHub
from nb_agent.jupyter.live.run_views import RunViews

if TYPE_CHECKING:  # loaded at the first run (pydantic), not at %load_ext
    from nb_agent.jupyter.live.document import LiveDocument
    from nb_agent.jupyter.live.hub import LiveChannel
    from nb_agent.jupyter.live.protocol import CardCheck, Reverted
    from nb_agent.jupyter.live.run import LiveRun

log = logging.getLogger(__name__)

MAX_HISTORY = 100



def executing_cell_id(shell: Any) -> str | None:
    """The ``cellId`` JupyterLab puts in the running execute request's metadata."""
    kernel = getattr(shell, "kernel", None)
    if kernel is None:
        return None
    try:
        parent = kernel.get_parent()
    except Exception:  # noqa: BLE001 - no parent outside a request
        return None
    metadata = (parent or {}).get("metadata") or {}
    value = metadata.get("cellId")
    return value if isinstance(value, str) and value else None


def locate(notebook_path: str, server_root: str | None) -> NotebookAddress:
    """The notebook the page reports, as seen from this kernel (its cwd, its gateway's folder)."""
    return NotebookAddress.locate(notebook_path, server_root, cwd=Path.cwd(), working_dir=os.environ.get(WORKING_DIR_ENV) or None)


class LiveNotebook:
    """Per kernel: the comm hub, the current run, and what the agent last saw."""

    def __init__(self, *, shell: Any) -> None:
        self.shell = shell
        self.hub = LiveHub()
        self.enabled = True
        self.review = True
        """Mark edits made without asking as pending review (``AgentMagics.review_edits``)."""
        self.current: LiveRun | None = None
        self.last: LiveRun | None = None
        self.mode = "file"
        self.reason = "no %%agent cell has run yet"
        self.just_ended: LiveRun | None = None
        """The live run of the cell that just ended (``None`` when it ran in file mode)."""
        self._left: LiveDocument | None = None
        """The notebook as the agent left it (end of its last live run)."""
        self._reverted: list[str] = []
        """What the user reverted from a run's card since the agent's last run (for its next note)."""
        self.address: NotebookAddress | None = None
        """The notebook of the last live run (kept when its page goes away)."""
        self.history: list[LiveRun] = []
        """This kernel's live runs, oldest first (the last :data:`MAX_HISTORY`): their edits
        are what a rewind reverts."""
        self.started = 0
        """How many live runs this kernel started (each run's ``seq``)."""
        self.hub.on_reverted = self._on_reverted
        self.hub.on_card_check = self._card_check
        self.views = RunViews(self.hub)
        """The running cell's view, for a page that opens during the run (a reload)."""

    def install(self) -> None:
        if getattr(self.shell, "kernel", None) is None:
            self.reason = "not running in a Jupyter kernel"
            return
        self.hub.register()

    def uninstall(self) -> None:
        self.hub.unregister()

    async def start_run(self) -> LiveRun | None:
        """At a ``%%agent`` cell's start: the live run, or ``None`` (file mode, reason kept)."""
        self.current = None
        if not self.enabled:
            self.mode, self.reason = "file", "turned off (AgentMagics.live_notebook = False)"
            return None
        if not self.hub.registered:
            self.mode, self.reason = "file", self.hub.last_problem or self.reason
            return None
        self.hub.bind_loop()
        found = await self.hub.snapshot_for_cell(executing_cell_id(self.shell))
        if found is None:
            self.mode, self.reason = "file", self.hub.last_problem or "no page answered"
            return None
        from nb_agent.jupyter.live.document import LiveDocument
        from nb_agent.jupyter.live.run import LiveRun

        channel, snapshot = found
        address = locate(snapshot.notebook_path or channel.hello.notebook_path, channel.hello.server_root)
        self.address = address
        run = LiveRun(hub=self.hub, channel=channel, document=LiveDocument.from_snapshot(snapshot), address=address, review=self.review)
        if self._left is not None and self._left.snapshot.notebook_path == snapshot.notebook_path:
            run.document.seen = dict(self._left.seen)
            run.document.has_read = self._left.has_read
        run.start()
        self.current = run
        self.started += 1
        run.seq = self.started
        self.history = [*self.history[-(MAX_HISTORY - 1) :], run]
        frontend = channel.hello.frontend or "a notebook page"
        self.mode, self.reason = "live", f"the nb-agent-live extension in {frontend} answered for {snapshot.notebook_path or 'this notebook'}"
        return run

    async def page_cells(self, timeout: float = 2.0) -> tuple[list[Any], NotebookAddress] | None:
        """The cells of the page that shows the running cell (a fresh snapshot when the page
        answers within ``timeout``, else its latest), for a command run outside ``%%agent``;
        ``None`` without such a page."""
        if not self.hub.registered:
            return None
        self.hub.bind_loop()
        cell_id = executing_cell_id(self.shell)
        pages = [c for c in self.hub.connected if c.snapshot is not None and any(cell.id == cell_id for cell in c.snapshot.cells)]
        if not cell_id or not pages:
            return None
        channel = max(pages, key=lambda c: c.snapshot_at)
        snapshot = await self.hub.request_snapshot(channel, timeout) or channel.snapshot
        assert snapshot is not None
        return list(snapshot.cells), locate(snapshot.notebook_path or channel.hello.notebook_path, channel.hello.server_root)

    def end_run(self) -> None:
        run = self.current
        self.current = None
        self.just_ended = run
        if run is None:
            return
        try:
            run.finish()
        except Exception:  # the page may be gone
            log.debug("ending the live run failed", exc_info=True)
        self.last = run
        self._left = run.document

    def _on_reverted(self, channel: LiveChannel, message: Reverted) -> None:
        """The user reverted agent edits from a run's card: those cells are the agent's side
        (applied to what the agent left, so the next run does not report them as the user's
        changes), and the agent is told which of its edits were reverted."""
        path = channel.hello.notebook_path or (channel.snapshot.notebook_path if channel.snapshot else "")
        run = self.current
        mid_run = run is not None and run.told is not None and run.document.snapshot.notebook_path == path
        if mid_run:  # an earlier run's card, used during this run: compared at this run's next turn
            assert run is not None and run.told is not None
            run.told.apply_quietly(message.ops)
        elif self._left is not None and self._left.snapshot.notebook_path == path:
            self._left.apply_quietly(message.ops)
        records = {r.edit_id: r for r in (self.last.edits if self.last else [])}
        order = list(records)
        told = run.reverted if mid_run and run is not None else self._reverted
        for edit_id in sorted(message.edit_ids, key=lambda e: order.index(e) if e in order else len(order)):  # the agent's order
            record = records.get(edit_id)
            told.append(record.summary if record else f"edit {edit_id} of an earlier run")

    def _card_check(self, channel: LiveChannel, message: CardCheck) -> None:
        """A page renders an edits card it does not trust: the run's card as this kernel made
        it, when a live run of this kernel made it in the page's notebook (else ``None``: the
        page shows it without buttons)."""
        from nb_agent.jupyter.live.edits_card import run_card
        from nb_agent.jupyter.live.protocol import CardFacts

        path = channel.hello.notebook_path or (channel.snapshot.notebook_path if channel.snapshot else "")
        run = next((r for r in self.history if r.run_id == message.run_id and r.edits), None)
        card = run_card(run) if run is not None and run.document.snapshot.notebook_path == path else None
        channel.send(CardFacts(request_id=message.request_id, run_id=message.run_id, card=card).model_dump(mode="json"))

    def agent_reverted(self, ops: list[Any]) -> None:
        """A rewind reverted agent edits through the page: the notebook as the agent left it
        follows, so its next note does not count those cells as the user's changes (the
        agent is not told here: the rewind says what it needs to hear)."""
        if self._left is not None:
            self._left.apply_quietly(ops)

    def attachments(self, run: LiveRun) -> list[str]:
        """Between-turn notes: what the user did since the agent's last turn, and edits of
        the previous run that the page refused after that run had ended."""
        from nb_agent.jupyter.live.changes import notebook_changes, reverted_note
        from nb_agent.jupyter.live.run import describe

        notes = []
        left = self._left
        if left is not None and left.snapshot.notebook_path == run.document.snapshot.notebook_path:
            skip = {run.document.executing_cell_id} if run.document.executing_cell_id else set()
            changes = notebook_changes(left.cells, run.document.cells, skip=skip)
            if changes:
                notes.append(changes)
        if self._reverted:
            notes.append(reverted_note(self._reverted))
            self._reverted = []
        previous = self.last
        if previous is not None:
            refused = previous.reconcile()
            if refused:
                notes.append("The notebook page refused these edits of your previous turn:\n" + "\n".join(f"- {line}" for line in describe(refused)))
        return notes

    def elsewhere(self, raw: str, cwd: Path, notebook: Path | None) -> str | None:
        """For a path that is not a file on this machine: the message saying it is the user's
        notebook on the Jupyter server (``notebook``: the one the session knows of, if any)."""
        from nb_agent.jupyter.live.address import elsewhere_message

        known = [self.address] if self.address is not None else []
        if notebook is not None:
            known.append(NotebookAddress(notebook_path=notebook.name, server_root=None, shown=notebook, on_this_machine=notebook.is_file()))
        return elsewhere_message(raw, cwd, known=known, working_dir=os.environ.get(WORKING_DIR_ENV) or None)

    def files_line(self) -> str:
        """Which machine's files the tools see, and where the notebook is (``%agent status``)."""
        import socket

        text = f"the kernel's machine ({socket.gethostname()}), working directory {Path.cwd()}"
        address = self.address
        working_dir = os.environ.get(WORKING_DIR_ENV) or ""
        if address is not None and address.on_this_machine:
            return text + "; the notebook's file is here too"
        if address is not None:
            return text + f"; the notebook is on the Jupyter server ({address.shown}), not here: Read and NotebookEdit reach it through the page"
        if working_dir and not os.path.isdir(working_dir):
            return text + f"; a gateway started this kernel apart from the Jupyter server (the notebook's folder there: {working_dir})"
        return text

    def status_lines(self) -> list[str]:
        from nb_agent.jupyter.live.run import describe

        lines = [f"live       {self.mode} — {self.reason}"]
        pages = len(self.hub.connected)
        if self.hub.registered:
            lines.append(f"live pages {pages} connected")
        if self.last is not None and self.last.edits:
            lines.append(f"live edits {len(self.last.edits)} (" + "; ".join(describe(self.last.edits)[:3]) + ")")
        return lines
