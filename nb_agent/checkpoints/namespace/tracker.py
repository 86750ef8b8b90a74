"""Namespace checkpoints around each ExecuteCode call.

Before a call, :meth:`NamespaceTracker.begin_call` keeps the bindings (name → object) and a
snapshot of each object the call may change in place: every pandas frame (copy-on-write
makes that free), and the arrays and plain containers the code's syntax points at (or all
of them when the code is opaque), copied within the memory budget, smallest first. Small
containers and arrays are copied anyway, up to a few megabytes, to catch changes through
names the code does not show. An array left uncopied gets a probe of sampled bytes.

After the call, :meth:`NamespaceTracker.end_call` compares: names created, rebound,
deleted, changed in place, or "may have changed" when nothing cheap can tell. The record
keeps what is needed to undo the call (restore.py); the oldest records give up their
copies first when the budget is exceeded, and then say they are not restorable.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field
from typing import Any

from nb_agent.checkpoints.memory import default_memory_budget
from nb_agent.checkpoints.namespace import lines as describe
from nb_agent.checkpoints.namespace.code_scan import CodeScan
from nb_agent.checkpoints.namespace.records import ABSENT, CallRecord, ChangeKind, Held, NameChange, Proof
from nb_agent.objects import ObjectKind, human_bytes, kind_of
from nb_agent.objects.kinds import ChangeTest

SMALL_COPY_BYTES = 256 * 1024
"""An array or container this small is copied even when the code does not point at it..."""
SMALL_COPY_TOTAL = 4 * 1024 * 1024
"""...up to this much in all per call."""

Variables = Iterable[tuple[str, Any]]


@dataclass(kw_only=True)
class PendingCall:
    """What :meth:`NamespaceTracker.begin_call` kept, until the call ends."""

    bindings: dict[str, Any]
    held: dict[str, Held] = field(default_factory=dict)
    probes: dict[str, Hashable] = field(default_factory=dict)
    watched: set[str] = field(default_factory=set)
    """Names the code may change in place (all of them when it is opaque)."""
    uncovered: dict[str, str] = field(default_factory=dict)
    """Watched names without a snapshot, and why."""
    opaque: str | None = None
    copied: int = 0


class NamespaceTracker:
    """Per kernel: every call's record, the memory they hold, and what the agent left."""

    def __init__(self, *, budget: int | Callable[[], int | None] | None = None) -> None:
        self._budget = budget
        self._default_budget: int | None = None
        self.records: list[CallRecord] = []
        self.run = 0
        self._numbers = itertools.count(1)
        self.next_number = 1
        self.expected: dict[str, Proof] = {}
        """Name → what the agent (or a rewind) left bound to it, until someone else changes it."""
        self.user_changed: dict[str, int] = {}
        """Name → the last run before which the user changed it (after the agent had)."""

    @property
    def budget(self) -> int:
        """Bytes the records may hold (a setting; by default the smaller of 1 GB and a
        quarter of the memory available when first asked)."""
        chosen = self._budget() if callable(self._budget) else self._budget
        if chosen:
            return int(chosen)
        if self._default_budget is None:
            self._default_budget = default_memory_budget()
        return self._default_budget

    @property
    def retained(self) -> int:
        return sum(record.retained for record in self.records)

    # --- runs -----------------------------------------------------------------------------------
    def start_run(self, run: int, variables: Variables) -> None:
        """Before run ``run``: note the names the user changed since the agent left them."""
        self.run = run
        self.notice_user_changes(dict(variables), before_run=run)

    def notice_user_changes(self, now: dict[str, Any], *, before_run: int) -> list[str]:
        """Names whose value is no longer what the agent left (the user changed them)."""
        changed = [name for name, proof in self.expected.items() if not proof.matches(now.get(name, ABSENT))]
        for name in changed:
            self.user_changed[name] = before_run
            del self.expected[name]
        return changed

    def end_run(self, variables: Variables) -> None:
        """At a run's end: what the run left bound to each name it changed."""
        names = {name for record in self.records if record.run == self.run and not record.rewound for name in record.changes}
        if names:
            self.agent_left(names, dict(variables))

    def agent_left(self, names: Iterable[str], now: dict[str, Any]) -> None:
        for name in names:
            self.expected[name] = Proof.of(now.get(name, ABSENT))

    # --- one call ---------------------------------------------------------------------------------
    def begin_call(self, variables: Variables, scan: CodeScan) -> PendingCall:
        bindings = dict(variables)
        watched, opaque = scan.may_change(bindings)
        watched |= _sharing(bindings, watched)
        pending = PendingCall(bindings=bindings, opaque=opaque)
        wanted, small = [], []
        for name, value in bindings.items():
            kind = kind_of(value)
            if kind.in_place == "never" or kind.lazy:
                continue
            is_watched = opaque is not None or name in watched
            if is_watched:
                pending.watched.add(name)
            held = pending.held[name] = Held(value=value, facts=_facts(kind, value))
            cost = _cost(kind, value)
            if cost == 0:
                self._copy(pending, name, kind, value, held)
            elif cost is None:
                if is_watched:
                    pending.uncovered[name] = f"no way to copy a {kind.type_name(value)}"
            else:
                (wanted if is_watched else small).append((cost, name, kind, value, held))
        for cost, name, kind, value, held in sorted(wanted, key=lambda entry: entry[0]):
            if self._make_room(pending, cost):
                self._copy(pending, name, kind, value, held)
            else:
                pending.uncovered[name] = f"{human_bytes(cost)}, over the copy budget of {human_bytes(self.budget)}"
                self._probe(pending, name, kind, value)
        spent = 0
        for cost, name, kind, value, held in sorted(small, key=lambda entry: entry[0]):
            if cost <= SMALL_COPY_BYTES and spent + cost <= SMALL_COPY_TOTAL and self._make_room(pending, cost, evict=False):
                spent += cost
                self._copy(pending, name, kind, value, held)
            else:
                self._probe(pending, name, kind, value)
        return pending

    def _copy(self, pending: PendingCall, name: str, kind: ObjectKind, value: Any, held: Held) -> None:
        try:
            held.snapshot, held.has_snapshot = kind.snapshot(value), True
            pending.copied += kind.copy_cost(value) or 0
        except Exception as exc:  # noqa: BLE001 - the object's copy failed: reported, not fatal
            held.lost = f"its copy failed: {type(exc).__name__}: {describe.cut(str(exc), 80)}"
            pending.uncovered[name] = held.lost
            self._probe(pending, name, kind, value)

    def _probe(self, pending: PendingCall, name: str, kind: ObjectKind, value: Any) -> None:
        try:
            probe = kind.probe(value)
        except Exception:  # noqa: BLE001
            probe = None
        if probe is not None:
            pending.probes[name] = probe

    def _make_room(self, pending: PendingCall, cost: int, *, evict: bool = True) -> bool:
        """Whether ``cost`` more bytes fit the budget, giving up older copies if needed."""
        if cost > self.budget:
            return False
        for record in self.records if evict else ():
            if self.retained + pending.copied + cost <= self.budget:
                break
            if not record.dropped:
                record.drop(f"its copy was dropped to stay within the memory budget of {human_bytes(self.budget)}")
                self._account(pending.bindings)
        return self.retained + pending.copied + cost <= self.budget

    def end_call(self, pending: PendingCall, variables: Variables) -> CallRecord:
        now = dict(variables)
        record = CallRecord(number=next(self._numbers), run=self.run)
        self.next_number = record.number + 1
        for name, old in pending.bindings.items():
            change = self._compare(pending, name, old, now)
            if change is not None:
                record.changes[name] = change
        for name in now:
            if name not in pending.bindings:
                record.changes[name] = NameChange(name=name, change="created", before=Held())
        self.records.append(record)
        self._account(now)
        self._within_budget(now)
        for change in record.changes.values():
            change.line = describe.line(change, now.get(change.name, ABSENT))
        return record

    def _compare(self, pending: PendingCall, name: str, old: Any, now: dict[str, Any]) -> NameChange | None:
        held = pending.held.get(name) or Held(value=old)
        if held.facts is None:
            held.facts = _facts(kind_of(old), old)
        if name not in now:
            return NameChange(name=name, change="deleted", before=_unsnapshotted(held))
        value = now[name]
        if value is not old:
            return NameChange(name=name, change="rebound", before=_unsnapshotted(held))
        verdict = self._in_place(pending, name, value, held)
        if verdict is None:
            return None
        if name in pending.uncovered and not held.lost:
            held.lost = pending.uncovered[name]
        return NameChange(name=name, change=verdict, before=held)

    def _in_place(self, pending: PendingCall, name: str, value: Any, held: Held) -> ChangeKind | None:
        kind = kind_of(value)
        if held.has_snapshot:
            verdict: ChangeTest
            try:
                verdict = kind.compare(value, held.snapshot)
            except Exception:  # noqa: BLE001 - a comparison that fails tells nothing
                verdict = "unknown"
            return None if verdict == "same" else verdict
        if name in pending.probes:
            try:
                if kind.probe(value) != pending.probes[name]:
                    return "changed"
            except Exception:  # noqa: BLE001
                pass
        return "unknown" if name in pending.watched else None

    def _account(self, now: dict[str, Any]) -> None:
        """What every record keeps alive now: an object the namespace held when a record was
        made may have been rebound since, and then only the records hold it."""
        live = {id(value) for value in now.values()}
        counted: set[int] = set()
        for record in self.records:
            if not record.dropped:
                record.retained = _retained(record, live, counted)

    def _within_budget(self, now: dict[str, Any]) -> None:
        for record in self.records:
            if self.retained <= self.budget:
                return
            if record.dropped:
                continue
            record.drop(f"keeping it would exceed the memory budget of {human_bytes(self.budget)}")
            self._account(now)  # what it held may be held by a later record too

    def forget(self) -> None:
        """Drop every record (a new conversation)."""
        self.records.clear()
        self.expected.clear()
        self.user_changed.clear()


def _sharing(bindings: dict[str, Any], watched: set[str]) -> set[str]:
    """Names whose objects share memory with a watched one (views of a changed array)."""
    found: set[str] = set()
    for name in watched & bindings.keys():
        value = bindings[name]
        kind = kind_of(value)
        for other_name, other in bindings.items():
            if other_name not in watched and other is not value:
                try:
                    if kind.shares_memory(value, other):
                        found.add(other_name)
                except Exception:  # noqa: BLE001
                    continue
    return found


def _facts(kind: ObjectKind, value: Any) -> Any:
    try:
        return kind.facts(value)
    except Exception:  # noqa: BLE001 - a broken object is described by name only
        return None


def _cost(kind: ObjectKind, value: Any) -> int | None:
    try:
        return kind.copy_cost(value)
    except Exception:  # noqa: BLE001
        return None


def _unsnapshotted(held: Held) -> Held:
    """A rebound or deleted name is put back by binding its old object again: its snapshot
    (if any) is not needed."""
    held.snapshot, held.has_snapshot = None, False
    return held


def _retained(record: CallRecord, live: set[int], counted: set[int]) -> int:
    """Bytes the record keeps alive: snapshots of objects changed in place, and objects no
    name holds any more (each counted once, for the oldest record holding it)."""
    total = 0
    for change in record.changes.values():
        before = change.before
        try:
            if before.has_snapshot:
                total += kind_of(before.snapshot).retained(before.value, before.snapshot)
            value = before.value
            if value is not ABSENT and id(value) not in live and id(value) not in counted:
                counted.add(id(value))
                total += kind_of(value).memory(value) or 0
        except Exception:  # noqa: BLE001 - sizing is best effort
            continue
    return total
