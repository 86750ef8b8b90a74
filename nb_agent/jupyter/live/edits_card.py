"""The run's card of notebook edits: shown below a live run's output when it ends.

One output whose bundle has the edits as ``application/vnd.nb-agent.edits+json`` (rendered by
the nb-agent-live extension: each edit with a "Go to cell" button, and "Revert this run's
edits", which the page applies itself, see ``labextension/PROTOCOL.md``) and as HTML and
plain text (what a notebook shows without the extension, or from an untrusted file).
The revert data is each edit's inverse operations; a revert applies them newest edit first.
"""

from __future__ import annotations

from typing import Any

from nb_agent.jupyter.html import el
from nb_agent.jupyter.live.protocol import EditsCard, EditsCardEntry, RevertEntry
from nb_agent.jupyter.live.run import EditRecord, LiveRun
from nb_agent.jupyter.view.change_render import MAX_STATIC_LINES, change_html, change_text

EDITS_MIME = "application/vnd.nb-agent.edits+json"
EDITS_VERSION = 1
MAX_PREVIEW_CHARS = 80
STATUS_TEXT = {"applied": "applied", "sent": "sent, not confirmed", "refused": "refused"}


def preview(source: str) -> str:
    """The first non-blank line of ``source``, cut to :data:`MAX_PREVIEW_CHARS`."""
    line = next((line.strip() for line in source.splitlines() if line.strip()), "")
    return line if len(line) <= MAX_PREVIEW_CHARS else line[: MAX_PREVIEW_CHARS - 1] + "…"


def _entry(record: EditRecord) -> EditsCardEntry:
    return EditsCardEntry(
        edit_id=record.edit_id,
        op=record.kind,
        summary=record.summary,
        cell_id=record.cell_id,
        preview=preview(record.preview),
        status=record.status,
        error=record.error,
        diff=change_text(record.change) if record.change is not None else "",
        review=record.review,
        revert=list(record.inverse) if record.status != "refused" else [],
    )


def revert_entry(record: EditRecord) -> RevertEntry:
    """What a ``revert`` message carries for ``record`` (its inverse operations)."""
    return RevertEntry(edit_id=record.edit_id, summary=record.summary, revert=list(record.inverse))


def _line(entry: EditsCardEntry) -> str:
    shown = f": {entry.preview}" if entry.preview else ""
    return f"{entry.summary}{shown} — {STATUS_TEXT.get(entry.status, entry.status)}"


def edits_bundle(run: LiveRun) -> dict[str, Any] | None:
    """The card's MIME bundle, or ``None`` when the run made no edit."""
    return records_bundle(run.edits, run_id=run.run_id, notebook_path=run.document.snapshot.notebook_path)


def run_card(run: LiveRun) -> EditsCard:
    """The card's data for ``run``, as this kernel knows it now."""
    return records_card(run.edits, run_id=run.run_id, notebook_path=run.document.snapshot.notebook_path)


def records_card(records: list[EditRecord], *, run_id: str, notebook_path: str) -> EditsCard:
    return EditsCard(version=EDITS_VERSION, run_id=run_id, notebook_path=notebook_path, edits=[_entry(record) for record in records])


def records_bundle(records: list[EditRecord], *, run_id: str, notebook_path: str) -> dict[str, Any] | None:
    """The card's MIME bundle for ``records`` (oldest first), or ``None`` without any."""
    if not records:
        return None
    card = records_card(records, run_id=run_id, notebook_path=notebook_path)
    entries = card.edits
    title = f"Notebook edits of this run ({len(entries)})"
    lines = [_line(entry) for entry in entries]
    items = [
        el("li", line, change_html(record.change, max_lines=MAX_STATIC_LINES) if record.change is not None and record.status != "refused" else None)
        for line, record in zip(lines, records)
    ]
    return {
        EDITS_MIME: card.model_dump(mode="json"),
        "text/html": el("div", el("b", title), el("ul", items), cls="nb-agent-edits"),
        "text/plain": "\n".join([title + ":"] + [f"- {line}" for line in lines]),
    }
