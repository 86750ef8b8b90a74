"""The checkpoints of one conversation: at the start of every run and every later turn,
the working directories' files (shadow repositories), the conversation's position, and the
marks of the kernel's parts (variables, notebook edits); and at each run's end, the files
again (so a later rewind can tell the agent's changes from the user's).

Files and conversation positions are written to the transcript too, so a resumed session
can still rewind them; the kernel's parts live only in the kernel that made them.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nb_agent.checkpoints.files import DEFAULT_MAX_FILE_SIZE, DEFAULT_MAX_FILES, FileSnapshot, ShadowRepo, Skipped
from nb_agent.checkpoints.parts import CheckpointPart
from nb_agent.errors import CheckpointError
from nb_agent.state_dir import checkpoints_dir

log = logging.getLogger(__name__)

CHECKPOINT_KIND = "checkpoint"
CHECKPOINT_END_KIND = "checkpoint_end"
CHECKPOINT_REWIND_KIND = "checkpoint_rewind"
PROMPT_CHARS = 60


@dataclass(kw_only=True)
class CheckpointSettings:
    """What the caller decides (read at each checkpoint, so a setting changed mid-session applies)."""

    enabled: Callable[[], bool] = lambda: True
    files: Callable[[], bool] = lambda: True
    root: Callable[[], Path] = checkpoints_dir
    max_file_size: Callable[[], int] = lambda: DEFAULT_MAX_FILE_SIZE
    max_files: Callable[[], int] = lambda: DEFAULT_MAX_FILES


@dataclass(kw_only=True)
class Checkpoint:
    id: str
    """``3`` for the start of run 3, ``3.2`` for the start of its second turn."""
    run: int
    turn: int
    at: float
    message_uuid: str | None
    """The last message of the conversation before this point (``None``: it was empty)."""
    prompt: str = ""
    files: dict[str, str] = field(default_factory=dict)
    """Working directory → its snapshot."""
    skipped: dict[str, tuple[Skipped, ...]] = field(default_factory=dict)
    marks: dict[str, Any] | None = field(default_factory=dict)
    """Part → its mark; ``None`` when this checkpoint came from a transcript (another kernel)."""
    code_rewound: bool = False
    conversation_rewound: bool = False


@dataclass(kw_only=True)
class RunRecord:
    number: int
    checkpoints: list[Checkpoint] = field(default_factory=list)
    end_files: dict[str, str] = field(default_factory=dict)
    end_skipped: dict[str, tuple[Skipped, ...]] = field(default_factory=dict)
    end_marks: dict[str, Any] | None = None
    user_paths: dict[str, set[str]] = field(default_factory=dict)
    """Folder → paths an earlier rewind kept because the user had changed them."""


class CheckpointStore:
    """Implements :class:`~nb_agent.checkpoints.protocol.RunCheckpoints` for one kernel."""

    def __init__(self, *, settings: CheckpointSettings | None = None, parts: Sequence[CheckpointPart] = ()) -> None:
        self.settings = settings or CheckpointSettings()
        self.parts = list(parts)
        self.runs: list[RunRecord] = []
        self.session_id: str | None = None
        self.repos: dict[str, ShadowRepo] = {}
        self.files_off: dict[str, str] = {}
        """Folder → why its file checkpoints are off for this conversation."""
        self.notices: list[str] = []
        """Said at the next chance (a run's start, ``%agent rewind --list``)."""
        self.redo: Any = None
        """The last rewind, until the next run (``%agent rewind --redo``)."""
        self.current: RunRecord | None = None

    # --- where ------------------------------------------------------------------------------------
    def folders(self, engine: Any) -> list[Path]:
        found = [Path(engine.config.cwd), *engine.tool_session.additional_directories]
        unique: dict[str, Path] = {}
        for folder in found:
            unique.setdefault(str(Path(folder).resolve()), Path(folder))
        return list(unique.values())

    def repo(self, folder: Path) -> ShadowRepo:
        key = str(folder.resolve())
        repo = self.repos.get(key)
        if repo is None or repo.max_file_size != self.settings.max_file_size() or repo.max_files != self.settings.max_files():
            repo = self.repos[key] = ShadowRepo(folder, root=self.settings.root(), max_file_size=self.settings.max_file_size(), max_files=self.settings.max_files())
        return repo

    # --- taking checkpoints (RunCheckpoints) --------------------------------------------------------
    async def run_started(self, engine: Any, prompt: str) -> list[str]:
        self._follow(engine)
        self.redo = None  # a rewind can be redone only until the next run
        if not self.settings.enabled():
            self.current = None
            return []
        run = RunRecord(number=(self.runs[-1].number + 1) if self.runs else 1)
        for part in self.parts:
            part.run_started(run.number)
        await self._checkpoint(engine, run, prompt=prompt)
        self.runs.append(run)
        self.current = run
        said, self.notices = self.notices, []
        return said

    async def turn_started(self, engine: Any) -> None:
        run = self.current
        if run is None or not run.checkpoints:
            return
        await self._checkpoint(engine, run, prompt="")

    def run_ended(self, engine: Any) -> None:
        run, self.current = self.current, None
        if run is None:
            return
        snapshots = self._snapshot_files(engine, "end of run")
        run.end_files = {folder: s.commit for folder, s in snapshots.items()}
        run.end_skipped = {folder: s.skipped for folder, s in snapshots.items()}
        run.end_marks = {part.name: part.mark() for part in self.parts}
        for part in self.parts:
            part.run_ended()
        engine.transcript.write_entry(CHECKPOINT_END_KIND, run=run.number, files=run.end_files)

    async def _checkpoint(self, engine: Any, run: RunRecord, *, prompt: str) -> None:
        turn = len(run.checkpoints) + 1
        label = f"run {run.number}" + (f", turn {turn}" if turn > 1 else "")
        snapshots = await asyncio.to_thread(self._snapshot_files, engine, label)
        checkpoint = Checkpoint(
            id=str(run.number) if turn == 1 else f"{run.number}.{turn}", run=run.number, turn=turn, at=time.time(),
            message_uuid=engine.messages[-1].uuid if engine.messages else None, prompt=_first_line(prompt),
            files={folder: s.commit for folder, s in snapshots.items()}, skipped={folder: s.skipped for folder, s in snapshots.items()},
            marks={part.name: part.mark() for part in self.parts},
        )  # fmt: skip
        run.checkpoints.append(checkpoint)
        engine.transcript.write_entry(
            CHECKPOINT_KIND, id=checkpoint.id, run=run.number, turn=turn, at=checkpoint.at,
            message_uuid=checkpoint.message_uuid, prompt=checkpoint.prompt, files=checkpoint.files,
        )  # fmt: skip

    def _snapshot_files(self, engine: Any, label: str) -> dict[str, FileSnapshot]:
        """Each working directory's snapshot; a folder that fails is turned off (said once)."""
        taken: dict[str, FileSnapshot] = {}
        if not self.settings.files():
            return taken
        for folder in self.folders(engine):
            key = str(folder.resolve())
            if key in self.files_off:
                continue
            try:
                taken[key] = self.repo(folder).snapshot(label)
            except CheckpointError as exc:
                self.files_off[key] = str(exc)
                self.notices.append(f"{exc} Nothing of yours was changed; %agent rewind will not restore files of this folder.")
            except Exception as exc:  # a checkpoint must never stop a run
                log.warning("file checkpoint failed", exc_info=True)
                self.files_off[key] = f"file checkpoints of {folder} failed: {type(exc).__name__}: {exc}"
                self.notices.append(self.files_off[key])
        return taken

    # --- the conversation changes ------------------------------------------------------------------
    def _follow(self, engine: Any) -> None:
        if self.session_id != engine.session_id:
            self.session_id = engine.session_id
            self.runs, self.redo, self.current = [], None, None

    def reset(self, engine: Any) -> None:
        self.session_id = engine.session_id
        self.runs, self.redo, self.current = [], None, None
        self.files_off.clear()
        for part in self.parts:
            part.reset()

    def restore(self, engine: Any, entries: Sequence[dict[str, Any]]) -> None:
        """A resumed conversation's checkpoints (files and conversation; no kernel parts).
        The same conversation carried on in this kernel (an engine rebuilt for a trust
        answer) keeps what this kernel has."""
        if self.session_id == engine.session_id and self.runs:
            return
        self.session_id, self.runs, self.redo, self.current = engine.session_id, [], None, None
        by_number: dict[int, RunRecord] = {}
        for entry in entries:
            kind = entry.get("kind")
            if kind == CHECKPOINT_KIND:
                run = by_number.setdefault(int(entry["run"]), RunRecord(number=int(entry["run"])))
                run.checkpoints.append(Checkpoint(
                    id=str(entry["id"]), run=run.number, turn=int(entry["turn"]), at=float(entry["at"]),
                    message_uuid=entry.get("message_uuid"), prompt=str(entry.get("prompt", "")),
                    files=dict(entry.get("files") or {}), marks=None,
                ))  # fmt: skip
            elif kind == CHECKPOINT_END_KIND and int(entry["run"]) in by_number:
                by_number[int(entry["run"])].end_files = dict(entry.get("files") or {})
            elif kind == CHECKPOINT_REWIND_KIND:
                self._replay_flags(by_number, entry)
        self.runs = [by_number[n] for n in sorted(by_number)]

    @staticmethod
    def _replay_flags(runs: dict[int, RunRecord], entry: dict[str, Any]) -> None:
        ids, rewound = set(entry.get("ids", [])), not entry.get("redo", False)
        for run in runs.values():
            for checkpoint in run.checkpoints:
                if checkpoint.id not in ids:
                    continue
                if entry.get("code"):
                    checkpoint.code_rewound = rewound
                if entry.get("conversation"):
                    checkpoint.conversation_rewound = rewound

    # --- looking ---------------------------------------------------------------------------------
    def checkpoints(self) -> list[Checkpoint]:
        return [c for run in self.runs for c in run.checkpoints]

    def run_of(self, checkpoint: Checkpoint) -> RunRecord:
        return next(run for run in self.runs if run.number == checkpoint.run)


def _first_line(text: str) -> str:
    line = next((part.strip() for part in text.splitlines() if part.strip()), "")
    return line if len(line) <= PROMPT_CHARS else line[: PROMPT_CHARS - 1] + "…"
