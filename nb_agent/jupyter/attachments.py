"""What the kernel adds to a prompt besides the user's text: what the user did to the live
notebook, the variables their code changed since the last run, and a summary of the
namespace; and, after each turn's tool results, the notebook changes made meanwhile.
None of it may stop a run: a failure leaves the note out."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

log = logging.getLogger(__name__)


@dataclass(kw_only=True)
class KernelAttachments:
    shell: Any
    settings: Any
    live: Any
    """The kernel's :class:`~nb_agent.jupyter.live.LiveNotebook`."""
    namespace_left: Any = None
    """The user's variables (name → type, id) when the last run ended."""

    def for_prompt(self) -> list[Any]:
        from nb_agent.messages import AttachmentMessage

        live = self.live.current
        notes = [AttachmentMessage(kind="notebook_changes", content=n) for n in self.live.attachments(live)] if live else []
        return notes + self._namespace_changes() + self._variables()

    async def between_turns(self) -> list[Any]:
        """After each turn's tool results: what the user did to the live notebook meanwhile
        (the page's messages reach the running cell when the kernel dispatches them)."""
        from nb_agent.messages import AttachmentMessage

        live = self.live.current
        try:
            note = live.changes_since_turn() if live is not None else None
        except Exception:  # noqa: BLE001 - a note must never stop the run
            log.debug("between-turn notebook changes failed", exc_info=True)
            return []
        return [AttachmentMessage(kind="notebook_changes", content=note)] if note else []

    def remember_namespace(self) -> None:
        """At the end of a run: the namespace the next run's changes are measured against."""
        self.namespace_left = self._namespace_fingerprint()

    def _namespace_fingerprint(self) -> Any:
        if not self.settings.attach_variables:
            return None
        from nb_agent.jupyter.namespace_changes import namespace_fingerprint

        try:
            return namespace_fingerprint(self.shell)
        except Exception:  # noqa: BLE001 - a strange namespace must not break the run's end
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
        except Exception:  # noqa: BLE001
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
        except Exception:  # noqa: BLE001 - a strange object in the namespace must not block the run
            log.debug("variables summary failed", exc_info=True)
            return []
        return [AttachmentMessage(kind="variables", content=summary)] if summary else []
