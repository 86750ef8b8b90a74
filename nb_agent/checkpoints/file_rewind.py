"""Rewinding files: every path the agent's runs changed since a checkpoint goes back to its
version at the checkpoint, unless someone changed it between or after the runs (then it
is kept, and said). Which paths the agent changed is read from the snapshots at the start
and end of each run; what changed between runs is the user's.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from nb_agent.checkpoints.files import Entry, ShadowRepo, Skipped
from nb_agent.checkpoints.parts import PartOutcome, PartPlan

CHANGE_LINES = 40
"""At most this many files are listed one by one in a plan or report."""


@dataclass(kw_only=True)
class Segment:
    """One stretch of the agent's work in a folder: snapshots at its start and its end
    (``None``: the end snapshot is missing, the next start or now stands in)."""

    start: str
    end: str | None
    user_paths: set[str] = field(default_factory=set)
    """Paths a rewind kept for the user inside this stretch."""


@dataclass(kw_only=True)
class FolderPlan:
    repo: ShadowRepo
    current: str
    """The snapshot taken for this plan (what the folder holds now)."""
    targets: dict[str, Entry | None] = field(default_factory=dict)


def plan_folder(repo: ShadowRepo, segments: list[Segment], current: str, *, skip: dict[str, str], plan: PartPlan, skipped_then: tuple[Skipped, ...], skipped_now: tuple[Skipped, ...]) -> FolderPlan:
    """Add one folder's lines to ``plan``; returns what to write there.

    ``skip``: paths (relative to the folder) left alone whatever happened, with why (the
    live notebook's file: its cells are rewound through the page)."""
    folder = FolderPlan(repo=repo, current=current)
    agent: set[str] = set()
    user: set[str] = set()
    for i, segment in enumerate(segments):
        end = segment.end or (segments[i + 1].start if i + 1 < len(segments) else current)
        agent |= repo.changed(segment.start, end)
        user |= segment.user_paths
        after = segments[i + 1].start if i + 1 < len(segments) else current
        if segment.end is not None:
            user |= repo.changed(segment.end, after)
    then = repo.entries(segments[0].start, agent)
    now = repo.entries(current, agent)
    for path in sorted(agent):
        if path in skip:
            plan.kept.append(f"{path} — {skip[path]}")
        elif path in user:
            plan.kept.append(f"{path} — you changed it after the run")
        elif then[path] != now[path]:
            folder.targets[path] = then[path]
            plan.changes.append(_change_line(path, then[path], now[path]))
    _oversized(plan, skipped_then, skipped_now)
    return folder


def _change_line(path: str, then: Entry | None, now: Entry | None) -> str:
    if then is None:
        return f"{path}: removed (the agent created it)"
    if now is None:
        return f"{path}: brought back (the agent deleted it)"
    return f"{path}: back to its earlier version"


def _oversized(plan: PartPlan, then: tuple[Skipped, ...], now: tuple[Skipped, ...]) -> None:
    """Files left out of the snapshots (over the size cap) that changed: not restorable."""
    before = {s.path: (s.size, s.mtime_ns) for s in then}
    for skipped in now:
        if skipped.reason != "over the size cap":
            continue
        if before.get(skipped.path) != (skipped.size, skipped.mtime_ns):
            plan.not_restorable.append(f"{skipped.path} — over the checkpoints' size cap, not kept")


def apply_folder(folder: FolderPlan, outcome: PartOutcome) -> dict[str, Entry | None]:
    """Write the folder's targets; returns, for a redo, what each written path held."""
    written = folder.repo.write(folder.targets)
    before = folder.repo.entries(folder.current, set(written.written) | set(written.deleted))
    for path in written.written:
        outcome.restored.append(f"{path} brought back" if before.get(path) is None else f"{path} back to its earlier version")
    outcome.restored += [f"{path} removed" for path in written.deleted]
    outcome.not_restored += [f"{path} — {why}" for path, why in written.failed.items()]
    return before


def redo_folder(repo: ShadowRepo, rewound_to: dict[str, Entry | None], before: dict[str, Entry | None], outcome: PartOutcome) -> None:
    """Put back what a rewind replaced, for the paths nobody changed since the rewind."""
    now = repo.entries(repo.snapshot("before a redo").commit, set(before))
    targets = {}
    for path, entry in before.items():
        if now.get(path) != rewound_to.get(path):
            outcome.kept.append(f"{path} — you changed it after the rewind")
        else:
            targets[path] = entry
    written = repo.write(targets)
    outcome.restored += [f"{p} as the run left it" for p in written.written] + [f"{p} removed again" for p in written.deleted]
    outcome.not_restored += [f"{path} — {why}" for path, why in written.failed.items()]
