"""What the user did to the notebook since the agent last saw it, as a short attachment.

Compares the notebook as the agent left it at the end of its previous run with the page's
snapshot at the start of this one: cells added, deleted, edited, run, and new errors.
Bounded: a few cells per kind, each line cut.
"""

from __future__ import annotations

from nb_agent.jupyter.bounded_list import bounded_list, cut_line
from nb_agent.jupyter.live.protocol import LiveCell

MAX_CELLS_PER_KIND = 8
MAX_LINE_CHARS = 160
MAX_REVERTED = 12


def _line(text: str) -> str:
    return cut_line(text, MAX_LINE_CHARS)


def _error(cell: LiveCell) -> str | None:
    for output in cell.outputs:
        if output.get("output_type") == "error":
            return f"{output.get('ename', 'Error')}: {output.get('evalue', '')}"
    return None


def _listed(title: str, entries: list[str]) -> list[str]:
    return bounded_list(title, entries, max_entries=MAX_CELLS_PER_KIND)


SINCE_LAST_TURN = "Since your last turn the user changed the notebook:"
WHILE_WORKING = "While you were working, the user changed the notebook:"


def light_copy(cells: list[LiveCell]) -> list[LiveCell]:
    """What :func:`notebook_changes` compares, copied cheaply (errors only of the outputs)."""
    return [
        LiveCell.model_construct(
            id=c.id, cell_type=c.cell_type, source=c.source, execution_count=c.execution_count,
            outputs=[o for o in c.outputs if o.get("output_type") == "error"], metadata=c.metadata, running=c.running,
        )  # fmt: skip
        for c in cells
    ]


def notebook_changes(
    before: list[LiveCell], after: list[LiveCell], *, skip: set[str] | frozenset[str] = frozenset(), heading: str = SINCE_LAST_TURN
) -> str | None:
    """A summary of the user's changes from ``before`` to ``after`` (``None`` when nothing changed).

    ``skip``: cell ids to leave out (the ``%%agent`` cell that is starting now).
    """
    old = {cell.id: cell for cell in before}
    new = {cell.id: cell for cell in after}
    added = [f"{c.id} ({c.cell_type}): {_line(c.source)}" for c in after if c.id not in old and c.id not in skip]
    deleted = [f"{c.id} ({c.cell_type}): {_line(c.source)}" for c in before if c.id not in new and c.id not in skip]
    edited, ran, errors = [], [], []
    for cell in after:
        previous = old.get(cell.id)
        if previous is None or cell.id in skip:
            continue
        if previous.source != cell.source:
            edited.append(f"{cell.id}: now {_line(cell.source)}")
        if cell.execution_count is not None and cell.execution_count != previous.execution_count:
            ran.append(f"{cell.id} [{cell.execution_count}]: {_line(cell.source)}")
            error = _error(cell)
            if error:
                errors.append(f"{cell.id}: {_line(error)}")
    lines = (
        _listed("Cells added", added)
        + _listed("Cells deleted", deleted)
        + _listed("Cells edited", edited)
        + _listed("Cells run", ran)
        + _listed("New errors", errors)
    )
    if not lines:
        return None
    return heading + "\n" + "\n".join(lines)


def reverted_note(summaries: list[str]) -> str:
    """Which of its edits the user reverted from a run's card (so those cells are not
    reported as the user's changes), bounded."""
    return "\n".join(bounded_list("The user reverted these edits of yours (from the run's card)", summaries, max_entries=MAX_REVERTED))
