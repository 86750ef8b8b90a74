"""What the kernel adds to a prompt besides the user's text: a kernel restart since the
conversation's last turn, what the user did to the live notebook, what the kernel really ran
beside it (provenance), the variables their code changed since the last run, and a summary
of the namespace; and, after each turn's tool results, the notebook changes made meanwhile.
None of it may stop a run: a failure leaves the note out."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from nb_agent.jupyter.provenance.ledger import CellLedger
from nb_agent.jupyter.user_namespace import user_variables

if TYPE_CHECKING:
    from nb_agent.jupyter.provenance.report import Entry, Provenance

log = logging.getLogger(__name__)

PROVENANCE_SINCE_TURN = "Since your last turn, what the kernel ran no longer matches the notebook here:"


@dataclass(kw_only=True)
class KernelAttachments:
    shell: Any
    settings: Any
    live: Any
    """The kernel's :class:`~nb_agent.jupyter.live.LiveNotebook`."""
    namespace_left: Any = None
    """The user's variables (name → type, id) when the last run ended."""
    agent_names: Any = lambda: set()
    """The names whose value the agent's ExecuteCode made (it knows where they come from)."""
    ledger: CellLedger = field(default_factory=CellLedger)
    """Which cell ran as which execution count (installed at ``%load_ext``)."""
    restart_notice: str | None = None
    """Said at the next run: the resumed conversation ran in another kernel process."""
    _told: set[Entry] = field(default_factory=set)
    """The provenance entries the agent was told during this run."""

    def for_prompt(self) -> list[Any]:
        from nb_agent.messages import AttachmentMessage

        notes: list[Any] = []
        if self.restart_notice:
            notes.append(AttachmentMessage(kind="kernel_restart", content=self.restart_notice))
            self.restart_notice = None
        live = self.live.current
        if live is not None:
            notes += [AttachmentMessage(kind="notebook_changes", content=n) for n in self.live.attachments(live)]
            found = self._provenance(live)
            self._told = set(found.entries()) if found is not None else set()
            text = found.text() if found is not None else None
            if text:
                notes.append(AttachmentMessage(kind="notebook_provenance", content=text))
        return notes + self._namespace_changes() + self._variables()

    async def between_turns(self) -> list[Any]:
        """After each turn's tool results: what the user did to the live notebook meanwhile
        (the page's messages reach the running cell when the kernel dispatches them), and
        what that changed in the provenance note."""
        from nb_agent.messages import AttachmentMessage

        live = self.live.current
        try:
            user_changed = live is not None and live.page_changed
            note = live.changes_since_turn() if live is not None else None
            provenance = self._provenance_since_turn(live) if user_changed else None
        except Exception:
            log.debug("between-turn notebook changes failed", exc_info=True)
            return []
        notes = [AttachmentMessage(kind="notebook_changes", content=note)] if note else []
        if provenance:
            notes.append(AttachmentMessage(kind="notebook_provenance", content=provenance))
        return notes

    def _provenance(self, live: Any) -> Provenance | None:
        """What the kernel ran beside the live notebook (``None`` when it cannot be said)."""
        from nb_agent.jupyter.provenance.report import KernelHistory, provenance

        try:
            document = live.document
            skip = {document.executing_cell_id} if document.executing_cell_id else set()
            agent = self.agent_names()
            variables = [name for name, _ in user_variables(self.shell) if name not in agent]
            return provenance(document.cells, KernelHistory.of(self.shell, self.ledger), variables, skip=skip)
        except Exception:
            log.debug("provenance failed", exc_info=True)
            return None

    def _provenance_since_turn(self, live: Any) -> str | None:
        """The entries the user's changes made new, leaving out the cells the agent edited."""
        found = self._provenance(live)
        if found is None:
            return None
        edited = {record.cell_id for record in live.edits}
        new = {e for e in found.entries() if e not in self._told and (e.cell_id is None or e.cell_id not in edited)}
        self._told |= new
        return found.text(only=new, heading=PROVENANCE_SINCE_TURN) if new else None

    def record_kernel(self, engine: Any) -> None:
        """At a run's end: which kernel process the conversation ran in, with its variables
        (a resume in another process tells the model they are gone)."""
        from nb_agent.jupyter.provenance.restart import KERNEL_ENTRY, kernel_entry

        if engine is None or not engine.messages:  # no conversation: no transcript to start
            return
        try:
            engine.transcript.write_entry(KERNEL_ENTRY, **kernel_entry([name for name, _ in user_variables(self.shell)]))
        except Exception:
            log.debug("recording the kernel failed", exc_info=True)

    def resumed(self, transcript: Any) -> None:
        """A conversation was resumed from ``transcript`` (its path): a restart notice for the
        next run when it last ran in another kernel process."""
        from nb_agent.jupyter.provenance.restart import KERNEL_ENTRY, restart_notice
        from nb_agent.transcript import load_transcript

        try:
            entries = load_transcript(transcript).entries_of(KERNEL_ENTRY)
            self.restart_notice = restart_notice(entries, now={name for name, _ in user_variables(self.shell)})
        except Exception:
            log.debug("reading the transcript's kernel entries failed", exc_info=True)

    def remember_namespace(self) -> None:
        """At the end of a run: the namespace the next run's changes are measured against."""
        self.namespace_left = self._namespace_fingerprint()

    def _namespace_fingerprint(self) -> Any:
        if not self.settings.attach_variables:
            return None
        from nb_agent.jupyter.namespace_changes import namespace_fingerprint

        try:
            return namespace_fingerprint(self.shell)
        except Exception:
            log.debug("namespace fingerprint failed", exc_info=True)
            return None

    def _namespace_changes(self) -> list[Any]:
        """The variables the user's code added, changed or deleted since the last run ended."""
        before = self.namespace_left
        if before is None or not self.settings.attach_variables:
            return []
        from nb_agent.jupyter.namespace_changes import namespace_changes
        from nb_agent.messages import AttachmentMessage

        try:
            note = namespace_changes(before, self.shell)
        except Exception:
            log.debug("namespace changes failed", exc_info=True)
            return []
        return [AttachmentMessage(kind="namespace_changes", content=note)] if note else []

    def _variables(self) -> list[Any]:
        if not self.settings.attach_variables:
            return []
        from nb_agent.jupyter.tools.inspect_variables import variables_summary
        from nb_agent.messages import AttachmentMessage

        try:
            summary = variables_summary(self.shell)
        except Exception:
            log.debug("variables summary failed", exc_info=True)
            return []
        return [AttachmentMessage(kind="variables", content=summary)] if summary else []
