"""The parts of a checkpoint besides files and conversation (the kernel's variables, the
live notebook's edits): each marks where the agent's work stood, says what changed since,
plans and applies a rewind, and redoes it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass(kw_only=True)
class PartPlan:
    """What rewinding one part would do; nothing is changed yet."""

    part: str
    changes: list[str] = field(default_factory=list)
    """One line per thing that will be put back."""
    kept: list[str] = field(default_factory=list)
    """``name — why``: left as it is (the user changed it after the agent)."""
    not_restorable: list[str] = field(default_factory=list)
    """``name — why``: the agent changed it and it cannot be put back."""
    data: Any = None

    @property
    def empty(self) -> bool:
        return not (self.changes or self.kept or self.not_restorable)


@dataclass(kw_only=True)
class PartOutcome:
    """What a rewind (or a redo) of one part did."""

    part: str
    restored: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    not_restored: list[str] = field(default_factory=list)
    redo: Any = None
    """What a redo needs (``None``: this part has nothing to redo)."""
    pending: Any = None
    """What :meth:`CheckpointPart.settle` still waits for."""


class CheckpointPart(Protocol):
    """A part of the kernel's state the agent changes, checkpointed with the files."""

    name: str

    def mark(self) -> Any:
        """Where the agent's work on this part stands now (kept in memory only)."""

    def run_started(self, run: int) -> None: ...

    def run_ended(self) -> None: ...

    def summary(self, since: Any, until: Any | None) -> str | None:
        """What changed between two marks, in a few words (``None``: nothing)."""
        ...

    def plan(self, since: Any, run: int) -> PartPlan:
        """What rewinding to mark ``since`` (taken in run ``run``) would do."""
        ...

    def apply(self, plan: PartPlan) -> PartOutcome:
        """Do it, without waiting for anything (so an interrupt cannot land inside)."""
        ...

    async def settle(self, outcome: PartOutcome) -> None:
        """Wait for what :meth:`apply` started elsewhere (the notebook page's answer) and
        complete ``outcome``; nothing to do for most parts."""

    def redo(self, outcome: PartOutcome) -> PartOutcome: ...

    def reset(self) -> None:
        """A new conversation: forget the marks."""

    def files(self) -> dict[str, str]:
        """Absolute paths a files rewind must leave alone (this part rewinds them its own
        way), with why."""
        ...
