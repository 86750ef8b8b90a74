"""What the namespace checkpoints keep: per ExecuteCode call, what each changed name held
before it (the object, and a snapshot when it was changed in place), and per run, proof
of what the agent left (to tell later whether the user changed it since)."""

from __future__ import annotations

import weakref
from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any, Literal

from nb_agent.objects import Facts, kind_of


class _Absent:
    def __repr__(self) -> str:
        return "<absent>"


ABSENT: Any = _Absent()
"""The name was not bound."""

ChangeKind = Literal["created", "rebound", "deleted", "changed", "unknown"]


@dataclass(kw_only=True)
class Held:
    """What a name held at one moment: enough to put it back."""

    value: Any = ABSENT
    """The bound object (a strong reference), or :data:`ABSENT`."""
    snapshot: Any = None
    has_snapshot: bool = False
    facts: Facts | None = None
    lost: str | None = None
    """Why it cannot be put back (its copy failed, was over the budget, or was dropped)."""

    def drop(self, reason: str, *, keep_value: bool) -> None:
        """Release what this holds (to stay within the memory budget)."""
        self.snapshot, self.has_snapshot = None, False
        if not keep_value:
            self.value = ABSENT
        self.lost = self.lost or reason


@dataclass(kw_only=True)
class NameChange:
    name: str
    change: ChangeKind
    before: Held
    line: str = ""

    @property
    def restorable(self) -> bool:
        if self.before.lost:
            return False
        if self.change in ("changed", "unknown"):
            return self.before.has_snapshot
        return True


@dataclass(kw_only=True)
class CallRecord:
    """One ExecuteCode call's changes."""

    number: int
    run: int
    changes: dict[str, NameChange] = field(default_factory=dict)
    retained: int = 0
    """Bytes this record keeps alive (copies, and objects no name holds any more)."""
    rewound: bool = False
    """Undone by a rewind (left out of later rewinds unless redone)."""
    dropped: bool = False
    """Let go to stay within the memory budget: holds nothing any more."""

    def drop(self, reason: str) -> int:
        """Release every copy and every object this record holds (the names it changed
        cannot be put back any more); returns the bytes it was counted for."""
        freed = self.retained
        for change in self.changes.values():
            if change.change != "created":
                change.before.drop(reason, keep_value=False)
        self.retained = 0
        self.dropped = True
        return freed


@dataclass(kw_only=True)
class Proof:
    """What the agent left bound to a name at the end of a run, and a fingerprint of its
    contents (``None`` when the kind has no exact one: identity alone is compared)."""

    present: bool
    ref: Any = None
    digest: Hashable | None = None

    @classmethod
    def of(cls, value: Any) -> Proof:
        if value is ABSENT:
            return cls(present=False)
        try:
            digest = kind_of(value).digest(value)
        except Exception:  # noqa: BLE001 - no fingerprint: identity only
            digest = None
        try:
            ref: Any = weakref.ref(value)
        except TypeError:  # lists, dicts: held strongly (small, and identity must stay true)
            ref = _Strong(value)
        return cls(present=True, ref=ref, digest=digest)

    def matches(self, value: Any, *, digest: Hashable | None = None) -> bool:
        """Whether ``value`` (or :data:`ABSENT`) is still what this proof recorded."""
        if not self.present or value is ABSENT:
            return not self.present and value is ABSENT
        if self.ref() is not value:
            return False
        if self.digest is None:
            return True
        if digest is None:
            try:
                digest = kind_of(value).digest(value)
            except Exception:  # noqa: BLE001
                return False
        return digest == self.digest


class _Strong:
    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __call__(self) -> Any:
        return self.value
