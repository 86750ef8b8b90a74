"""The files one run's Edit, Write and NotebookEdit calls changed, read from the run's start
and end snapshots (the shadow repositories of :mod:`nb_agent.checkpoints.files`), and
undoing one of them: the file goes back to what it held when the run started, unless it is
no longer what the run left (someone changed it since: it is left as it is, and said).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from nb_agent.checkpoints.files import Entry, ShadowRepo
from nb_agent.checkpoints.store import CheckpointStore, RunRecord
from nb_agent.errors import CheckpointError

MAX_FILES = 40
"""At most this many files on one card (the run card's rewind still covers the rest)."""
UNDO_REFUSED = "changed since the run: left as it is"


@dataclass(frozen=True, kw_only=True)
class FileEdit:
    """One file as the run found it (``before``) and left it (``after``); ``None``: absent."""

    repo: ShadowRepo
    path: str
    """Relative to ``repo.folder``."""
    before: Entry | None
    after: Entry | None

    @property
    def full_path(self) -> Path:
        return self.repo.folder / self.path

    def texts(self) -> tuple[str | None, str | None] | None:
        """``(before, after)`` as text (``None``: absent), or ``None`` for a binary file."""
        try:
            return self._text(self.before), self._text(self.after)
        except UnicodeDecodeError:
            return None

    def _text(self, entry: Entry | None) -> str | None:
        return self.repo.read(entry).decode("utf-8") if entry is not None else None


def run_file_edits(store: CheckpointStore, run: RunRecord, paths: set[str]) -> list[FileEdit]:
    """The files among ``paths`` (absolute) that ``run`` changed from its start to its end,
    in the order of ``paths`` sorted; files outside the checkpointed folders are not listed."""
    if not run.checkpoints:
        return []
    start = run.checkpoints[0]
    real = {os.path.realpath(p) for p in paths}
    edits: list[FileEdit] = []
    for folder, begun in start.files.items():
        ended = run.end_files.get(folder)
        if ended is None:
            continue
        repo = store.repo(Path(folder))
        inside = {os.path.relpath(p, repo.folder) for p in real if p.startswith(str(repo.folder) + os.sep)}
        changed = repo.changed(begun, ended) & inside
        before, after = repo.entries(begun, changed), repo.entries(ended, changed)
        edits += [FileEdit(repo=repo, path=path, before=before[path], after=after[path]) for path in sorted(changed) if before[path] != after[path]]
    return edits[:MAX_FILES]


def undo_file_edit(edit: FileEdit) -> str:
    """Put the file back as the run found it; returns what happened, in the user's words."""
    if not edit.repo.holds(edit.path, edit.after):
        return UNDO_REFUSED
    try:
        outcome = edit.repo.write({edit.path: edit.before})
    except CheckpointError as exc:
        return f"not restored: {exc}"
    if edit.path in outcome.failed:
        return f"not restored: {outcome.failed[edit.path]}"
    if edit.before is None:
        return "undone: removed (the run created it)"
    return "undone: brought back" if edit.after is None else "undone: back to before the run"
