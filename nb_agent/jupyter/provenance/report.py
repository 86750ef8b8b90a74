"""The provenance note: what the kernel ran, beside the notebook's cells.

From IPython's input history (``In``: what ran as each execution count), the
:class:`~nb_agent.jupyter.provenance.ledger.CellLedger` (which cell sent it) and the cells as
the page shows them:

- **out of order**: a cell that ran after cells below it (and the run order then);
- **stale**: a cell whose source changed since it ran (what ran, what is there now);
- **never run**: a code cell without an execution count;
- **earlier kernel**: a count this kernel never ran (it restarted since), or that another
  cell ran here;
- **hidden state**: a variable whose defining code (the last input that bound it and those
  that changed it in place since) is no longer in the notebook: a deleted cell, a cell that
  no longer sets it, or no cell at all (ExecuteCode, ``%run``, another notebook).

Bounded: a few entries per kind, each cut to one line, the history read back to
:data:`MAX_HISTORY` inputs. Parses are cached by source, so a second note costs little.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from nb_agent.jupyter.bounded_list import bounded_list, cut_line
from nb_agent.jupyter.provenance.code_names import cell_code_names, code_names
from nb_agent.jupyter.provenance.ledger import CellLedger
from nb_agent.wording import plural

MAX_ENTRIES = 8
MAX_LINE_CHARS = 160
MAX_ORDER = 40
"""Runs shown in the run order (the latest)."""
MAX_HISTORY = 5000
"""Inputs read back through the history for the variables' defining code."""

AGENT_CELL = "%%agent"
HEADING = "What the kernel ran, beside the notebook (IPython's history of this kernel, {inputs}):"
OUT_OF_ORDER = "Ran out of order (each ran after cells below it)"
STALE = "Changed since they ran (outputs and variables come from the code that ran)"
NEVER_RUN = "Never run"
EARLIER = "Counts from an earlier kernel (it restarted since, or another kernel ran them): their outputs are old and their variables are not in this kernel unless other code made them again"
HIDDEN = "Hidden state (variables whose defining code is no longer in the notebook)"

Status = Literal["current", "stale", "unsure", "earlier", "never"]


@dataclass(kw_only=True)
class KernelHistory:
    """What the kernel ran: ``raw[n]`` / ``parsed[n]`` are the input of execution count ``n``
    as typed and after IPython's transformations (``[0]`` is empty)."""

    raw: Sequence[str]
    parsed: Sequence[str]
    ledger: CellLedger | None = None

    @classmethod
    def of(cls, shell: Any, ledger: CellLedger | None = None) -> KernelHistory:
        manager = getattr(shell, "history_manager", None)
        if manager is None:
            return cls(raw=[""], parsed=[""], ledger=ledger)
        return cls(raw=manager.input_hist_raw, parsed=manager.input_hist_parsed, ledger=ledger)

    def ran_here(self, count: int) -> bool:
        return 1 <= count < len(self.raw)

    def cell_of(self, count: int) -> tuple[bool, str | None]:
        """``(known, cell id)``: whether the ledger saw count ``count`` run, and from which cell."""
        ledger = self.ledger
        if ledger is None or not ledger.covers(count):
            return False, None
        return True, ledger.cells[count]


@dataclass(frozen=True, kw_only=True)
class Entry:
    """One line of the note, and what it is about."""

    text: str
    cell_id: str | None = None
    variable: str | None = None


@dataclass(kw_only=True)
class Provenance:
    inputs: int
    out_of_order: list[Entry] = field(default_factory=list)
    run_order: str = ""
    stale: list[Entry] = field(default_factory=list)
    never_run: list[Entry] = field(default_factory=list)
    earlier: list[Entry] = field(default_factory=list)
    hidden: list[Entry] = field(default_factory=list)

    def entries(self) -> list[Entry]:
        return [*self.out_of_order, *self.stale, *self.never_run, *self.earlier, *self.hidden]

    def text(self, *, only: set[Entry] | None = None, heading: str | None = None) -> str | None:
        """The note (``None`` when there is nothing to say); ``only``: just these entries."""

        def keep(entries: list[Entry]) -> list[str]:
            return [e.text for e in entries if only is None or e in only]

        lines = bounded_list(OUT_OF_ORDER, keep(self.out_of_order), max_entries=MAX_ENTRIES)
        if lines and self.run_order:
            lines.append(f"Run order (cell position [count], oldest first): {self.run_order}")
        lines += bounded_list(STALE, keep(self.stale), max_entries=MAX_ENTRIES)
        lines += bounded_list(NEVER_RUN, keep(self.never_run), max_entries=MAX_ENTRIES)
        lines += bounded_list(EARLIER, keep(self.earlier), max_entries=MAX_ENTRIES)
        lines += bounded_list(HIDDEN, keep(self.hidden), max_entries=MAX_ENTRIES)
        if not lines:
            return None
        inputs = plural(self.inputs, "input")
        return (heading or HEADING.format(inputs=inputs)) + "\n" + "\n".join(lines)


def _norm(source: str) -> str:
    return source.rstrip("\n")  # IPython keeps inputs without their trailing newlines


def _first_line(source: str) -> str:
    return next((line.strip() for line in source.splitlines() if line.strip()), "")


def _first_difference(ran: str, now: str) -> str:
    for old, new in zip(ran.splitlines(), now.splitlines()):
        if old != new:
            return f"ran `{old.strip()}`, now `{new.strip()}`"
    old_lines, new_lines = ran.splitlines(), now.splitlines()
    if len(old_lines) > len(new_lines):
        return f"ran also `{old_lines[len(new_lines)].strip()}`, now gone"
    return f"now also `{new_lines[len(old_lines)].strip()}`, not run"


def _entry(text: str, *, cell_id: str | None = None, variable: str | None = None) -> Entry:
    return Entry(text=cut_line(text, MAX_LINE_CHARS), cell_id=cell_id, variable=variable)


@dataclass(kw_only=True)
class _Cell:
    position: int
    cell: Any
    source: str
    """The cell's source as IPython's history would keep it."""
    count: int
    status: Status = "never"

    @property
    def ref(self) -> str:
        return f"cell {self.cell.id} (#{self.position})"


class _Notebook:
    """The cells, looked up by id and by source."""

    def __init__(self, cells: Sequence[Any], skip: set[str]) -> None:
        self.code: list[_Cell] = []
        self.by_id: dict[str, _Cell] = {}
        self.by_source: dict[str, _Cell] = {}
        self._setters: dict[str, _Cell] | None = None
        for position, cell in enumerate(cells, start=1):
            if cell.cell_type != "code" or cell.id in skip or cell.source.lstrip().startswith(AGENT_CELL):
                continue
            entry = _Cell(position=position, cell=cell, source=_norm(cell.source), count=int(cell.execution_count or 0))
            self.code.append(entry)
            self.by_id[cell.id] = entry
            self.by_source.setdefault(entry.source, entry)

    def where(self, history: KernelHistory, count: int) -> tuple[Literal["present", "changed", "gone"], _Cell | None]:
        """Where the input of ``count`` is in the notebook now."""
        raw = history.raw[count]
        known, cell_id = history.cell_of(count)
        if known and cell_id is not None:
            entry = self.by_id.get(cell_id)
            if entry is None:
                return "gone", None
            return ("present" if entry.source == raw else "changed"), entry
        entry = self.by_source.get(raw)
        return ("present", entry) if entry is not None else ("gone", None)

    def sets(self, name: str) -> _Cell | None:
        """The first cell whose code binds ``name`` now."""
        if self._setters is None:
            self._setters = {}
            for entry in self.code:
                for bound in cell_code_names(entry.cell.source).bound:
                    self._setters.setdefault(bound, entry)
        return self._setters.get(name)


def _classify(notebook: _Notebook, history: KernelHistory, result: Provenance) -> None:
    for entry in notebook.code:
        cell, count = entry.cell, entry.count
        if not count:
            if cell.source.strip() and not (cell.metadata or {}).get("nb_agent", {}).get("agent_made"):
                entry.status = "never"
                result.never_run.append(_entry(f"{entry.ref}: {_first_line(cell.source)}", cell_id=cell.id))
            continue
        known, ran_id = history.cell_of(count)
        if not history.ran_here(count) or (known and ran_id is not None and ran_id != cell.id):
            entry.status = "earlier"
            result.earlier.append(_entry(f"{entry.ref} [{count}]: {_first_line(cell.source)}", cell_id=cell.id))
            continue
        ran = history.raw[count]
        if entry.source == ran:
            entry.status = "current"
            continue
        if not known and notebook.by_source.get(ran) is not None:  # another cell's code ran as this count
            entry.status = "earlier"
            result.earlier.append(_entry(f"{entry.ref} [{count}]: {_first_line(cell.source)}", cell_id=cell.id))
            continue
        entry.status = "stale" if known else "unsure"
        maybe = "" if known else " (or its count is from an earlier kernel)"
        result.stale.append(_entry(f"{entry.ref} [{count}]{maybe}: {_first_difference(ran, cell.source)}", cell_id=cell.id))


def _order(notebook: _Notebook, result: Provenance) -> None:
    ran = [e for e in notebook.code if e.status in ("current", "stale")]
    smallest_below: list[int] = [0] * len(ran)
    low = 1 << 62
    for index in range(len(ran) - 1, -1, -1):
        smallest_below[index] = low
        low = min(low, ran[index].count)
    for index, entry in enumerate(ran):
        if smallest_below[index] > entry.count:
            continue
        if len(result.out_of_order) >= MAX_ENTRIES:  # not shown: only counted
            result.out_of_order.append(_entry(f"{entry.ref} [{entry.count}] ran after cells below it", cell_id=entry.cell.id))
            continue
        earlier = [f"#{e.position} [{e.count}]" for e in ran[index + 1 :] if e.count < entry.count]
        shown = ", ".join(earlier[:3]) + (f" and {len(earlier) - 3} more" if len(earlier) > 3 else "")
        result.out_of_order.append(_entry(f"{entry.ref} [{entry.count}] ran after {shown}", cell_id=entry.cell.id))
    if result.out_of_order:
        by_count = sorted(ran, key=lambda e: e.count)[-MAX_ORDER:]
        result.run_order = ", ".join(f"#{e.position} [{e.count}]" for e in by_count)
        if len(ran) > MAX_ORDER:
            result.run_order = f"(the latest {MAX_ORDER}) " + result.run_order


def _hidden(notebook: _Notebook, history: KernelHistory, variables: Iterable[str], result: Provenance) -> None:
    unresolved = set(variables)
    touched: dict[str, list[int]] = {}
    bound_by: dict[str, int] = {}
    star_import = False
    last = len(history.raw) - 1
    oldest = max(1, last - MAX_HISTORY + 1)
    for count in range(last, oldest - 1, -1):
        if not unresolved:
            break
        names = code_names(history.parsed[count])
        star_import = star_import or names.star_import
        for name in unresolved & names.made:
            touched.setdefault(name, []).append(count)
            if name in names.bound:
                bound_by[name] = count
        unresolved -= names.bound
    whole_history = oldest == 1
    for name in sorted(set(variables), key=str.lower):
        if name not in bound_by:
            # an unbound name may come from a star import, or from inputs past the bound
            if whole_history and not star_import and notebook.sets(name) is None:
                result.hidden.append(_entry(f"{name}: no cell the kernel ran sets it (made by your ExecuteCode, %run, or code outside this notebook)", variable=name))
            continue
        reason = _gone(notebook, history, name, touched[name])
        if reason is not None:
            result.hidden.append(_entry(f"{name}: {reason}", variable=name))


def _gone(notebook: _Notebook, history: KernelHistory, name: str, counts: list[int]) -> str | None:
    """Why ``name``'s value comes from code no longer in the notebook (``counts``: the inputs
    that made it, newest first, the binding one last), or ``None``."""
    for count in counts:
        how = "set" if count == counts[-1] else "changed in place"
        where, entry = notebook.where(history, count)
        if where == "present":
            continue
        code = f"`{_first_line(history.raw[count])}`"
        if where == "changed" and entry is not None:
            now = cell_code_names(entry.cell.source)
            if name in now.made:
                continue  # the cell still makes it: said among the stale cells
            return f"{how} by [{count}] {code} in {entry.ref}, which no longer does"
        other = notebook.sets(name)
        also = f"; {other.ref} sets it now" if other is not None else ""
        return f"{how} by [{count}] {code}, which is no longer in the notebook (a deleted cell, or run from elsewhere){also}"
    return None


def provenance(cells: Sequence[Any], history: KernelHistory, variables: Iterable[str], *, skip: set[str] | None = None) -> Provenance:
    """What the kernel ran beside ``cells`` (objects with ``id``, ``cell_type``, ``source``,
    ``execution_count``, ``metadata``); ``variables``: the user's variable names now;
    ``skip``: cell ids to leave out (the running ``%%agent`` cell)."""
    notebook = _Notebook(cells, skip or set())
    result = Provenance(inputs=max(0, len(history.raw) - 1))
    _classify(notebook, history, result)
    _order(notebook, result)
    _hidden(notebook, history, list(variables), result)
    return result
