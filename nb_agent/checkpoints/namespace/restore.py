"""Undoing ExecuteCode calls: every name the calls since a checkpoint changed goes back to
what it held before the first of them, unless the user changed it after the agent did
(then it is kept, and said). What the rewind replaced is kept for a redo.
"""

from __future__ import annotations

from collections.abc import MutableMapping
from dataclasses import dataclass, field
from typing import Any

from nb_agent.checkpoints.namespace.records import ABSENT, CallRecord, Held, NameChange, Proof
from nb_agent.checkpoints.namespace.tracker import NamespaceTracker
from nb_agent.objects import describe_brief, kind_of


@dataclass(kw_only=True)
class NamespacePlan:
    """What a rewind of the namespace would do (nothing is changed yet)."""

    restore: dict[str, Held] = field(default_factory=dict)
    kept: dict[str, str] = field(default_factory=dict)
    """Name → why it is left as it is (the user changed it after the agent)."""
    lost: dict[str, str] = field(default_factory=dict)
    """Name → why it cannot be put back."""
    notes: dict[str, str] = field(default_factory=dict)
    """Name → what a partial restore leaves undone."""
    records: list[CallRecord] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not (self.restore or self.kept or self.lost)

    def preview(self) -> list[str]:
        """What will change, one line per name (for the confirmation)."""
        lines = [f"{name}: {_target_text(held)}" + (f" ({self.notes[name]})" if name in self.notes else "") for name, held in self.restore.items()]
        lines += [f"kept: {name} — {why}" for name, why in self.kept.items()]
        lines += [f"not restorable: {name} — {why}" for name, why in self.lost.items()]
        return lines


def _target_text(held: Held) -> str:
    if held.value is ABSENT:
        return "removed (the agent created it)"
    shown = held.snapshot if held.has_snapshot else held.value
    try:
        return f"back to {describe_brief(shown)}"
    except Exception:  # noqa: BLE001
        return "put back"


def plan_rewind(tracker: NamespaceTracker, *, since: int, run: int, now: dict[str, Any]) -> NamespacePlan:
    """Undo the calls numbered ``since`` and later (``run``: the checkpoint's run)."""
    plan = NamespacePlan(records=[r for r in tracker.records if r.number >= since and not r.rewound])
    tracker.notice_user_changes(now, before_run=tracker.run + 1)
    first: dict[str, NameChange] = {}
    for record in plan.records:
        for name, change in record.changes.items():
            first.setdefault(name, change)
    for name, change in first.items():
        held = change.before
        if tracker.user_changed.get(name, 0) > run:
            plan.kept[name] = "you changed it after the run"
        elif change.restorable:
            plan.restore[name] = held
        elif held.value is not ABSENT and now.get(name, ABSENT) is not held.value:
            plan.restore[name] = Held(value=held.value, facts=held.facts)  # rebound or deleted later
            plan.notes[name] = "its old object is bound again; whether the agent changed that object in place cannot be told"
        else:
            plan.lost[name] = held.lost or "no copy was taken (nothing cheap could copy it)"
    return plan


@dataclass(kw_only=True)
class NamespaceOutcome:
    restored: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    not_restored: list[str] = field(default_factory=list)
    redo: dict[str, Held] = field(default_factory=dict)
    """What each restored name held before the rewind (to redo it)."""
    left: dict[str, Proof] = field(default_factory=dict)
    """What the rewind left bound (a redo checks nobody changed it since)."""


def apply_plan(tracker: NamespaceTracker, plan: NamespacePlan, namespace: MutableMapping[str, Any]) -> NamespaceOutcome:
    """Do it. The whole plan is applied without awaiting anything (a kernel interrupt
    lands before or after, never in the middle)."""
    outcome = NamespaceOutcome(kept=[f"{n} — {why}" for n, why in plan.kept.items()], not_restored=[f"{n} — {why}" for n, why in plan.lost.items()])
    for name, target in plan.restore.items():
        _put_back(name, target, namespace, outcome, note=plan.notes.get(name))
    for record in plan.records:
        record.rewound = True
    tracker.agent_left(plan.restore, dict(namespace))
    outcome.left = {name: tracker.expected[name] for name in plan.restore if name in tracker.expected}
    return outcome


def _put_back(name: str, target: Held, namespace: MutableMapping[str, Any], outcome: NamespaceOutcome, *, note: str | None = None) -> None:
    current = namespace.get(name, ABSENT)
    redo = Held(value=current)
    try:
        if target.value is not ABSENT and target.has_snapshot and target.value is current and current is not ABSENT:
            kind = kind_of(current)  # restored in place: the redo needs the current contents
            redo.snapshot, redo.has_snapshot = kind.snapshot(current), True
    except Exception as exc:  # noqa: BLE001 - no redo for this name, said below
        redo.lost = f"its current value could not be copied for a redo ({type(exc).__name__})"
    try:
        if target.value is ABSENT:
            namespace.pop(name, None)
        elif target.has_snapshot:
            namespace[name] = kind_of(target.value).restore(target.value, target.snapshot)
        else:
            namespace[name] = target.value
    except Exception as exc:  # noqa: BLE001 - e.g. a read-only array: left as it is, said
        outcome.not_restored.append(f"{name} — putting it back failed: {type(exc).__name__}: {exc}")
        return
    outcome.redo[name] = redo
    outcome.restored.append(f"{name} — {_target_text(target)}" + (f" ({note})" if note else ""))


def apply_redo(tracker: NamespaceTracker, redo: dict[str, Held], left: dict[str, Proof], records: list[CallRecord], namespace: MutableMapping[str, Any]) -> NamespaceOutcome:
    """Undo a rewind: names nobody changed since are set back to what the rewind replaced."""
    outcome = NamespaceOutcome()
    for name, held in redo.items():
        proof = left.get(name)
        if proof is not None and not proof.matches(namespace.get(name, ABSENT)):
            outcome.kept.append(f"{name} — you changed it after the rewind")
        elif held.lost:
            outcome.not_restored.append(f"{name} — {held.lost}")
        else:
            _put_back(name, held, namespace, outcome)
    for record in records:
        record.rewound = False
    tracker.agent_left(redo, dict(namespace))
    return outcome
