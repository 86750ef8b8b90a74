"""File checkpoints: a shadow git repository per working directory, kept in the user's own
state directory (``~/.nb_agent/checkpoints/<folder>-<hash>``), never in the folder and
never touching the folder's own ``.git``.

A snapshot is a commit of everything in the folder that git would see (``.gitignore``
honoured, plus a few folders never worth keeping: ``.nb_agent``, ``.ipynb_checkpoints``,
``__pycache__``, virtual environments, ``node_modules``), whoever wrote it: Write, Edit,
NotebookEdit, Bash, the agent's own code. libgit2 (pygit2) does the work: its index keeps
each file's stat data, so after the first snapshot only files whose size or times changed
are read again. Files over the size cap and nested repositories are left out and named.
No filter, line-ending conversion or attribute of the folder applies to what is stored:
the bytes are kept exactly.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import stat
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nb_agent.errors import CheckpointError

DEFAULT_MAX_FILE_SIZE = 50 * 1024 * 1024
DEFAULT_MAX_FILES = 50_000
DEFAULT_EXCLUDES = (
    ".nb_agent/", ".ipynb_checkpoints/", "__pycache__/", ".venv/", "venv/", "node_modules/",
    ".mypy_cache/", ".pytest_cache/", ".ruff_cache/", ".tox/",
)  # fmt: skip
NO_FILTERS = "* -text -eol -crlf -ident -filter -working-tree-encoding\n"
"""``info/attributes`` outranks the folder's ``.gitattributes``: bytes are stored as they are."""
SNAPSHOT_REF = "refs/heads/snapshots"
MAX_SKIPPED = 100

Entry = tuple[str, int]
"""``(blob id, git file mode)`` of one path in a snapshot."""


@dataclass(frozen=True, kw_only=True)
class Skipped:
    """A file left out of a snapshot, with what is needed to see later whether it changed."""

    path: str
    reason: str
    size: int | None = None
    mtime_ns: int | None = None


@dataclass(frozen=True, kw_only=True)
class FileSnapshot:
    folder: str
    commit: str
    files: int
    skipped: tuple[Skipped, ...] = ()
    seconds: float = 0.0


@dataclass(kw_only=True)
class WriteOutcome:
    written: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)


def shadow_dir(root: Path, folder: Path) -> Path:
    real = os.path.realpath(folder)
    digest = hashlib.sha256(real.encode("utf-8", "surrogateescape")).hexdigest()[:16]
    name = "".join(c if c.isalnum() or c in "-_." else "_" for c in (os.path.basename(real) or "root"))[:40]
    return root / f"{name}-{digest}"


def _pygit2() -> Any:
    import pygit2

    return pygit2


class _Skipper:
    """The ``git_index_add_all`` callback: leaves out files over the cap and nested
    repositories (and stops past ``max_files``)."""

    def __init__(self, folder: str, *, max_file_size: int, max_files: int) -> None:
        self.folder, self.max_file_size, self.max_files = folder, max_file_size, max_files
        self.skipped: list[Skipped] = []
        self.seen = 0
        self.too_many = False

    def __call__(self, path_c: Any, spec: Any, payload: Any) -> int:
        from pygit2 import ffi

        path = ffi.string(path_c).decode("utf-8", "surrogateescape")
        self.seen += 1
        if self.seen > self.max_files:
            self.too_many = True
            return -1  # stops add_all
        if path.endswith("/"):
            self.skipped.append(Skipped(path=path, reason="a git repository of its own"))
            return 1
        try:
            info = os.lstat(os.path.join(self.folder, path))
        except OSError:
            return 0  # gone: add_all removes it from the index
        if info.st_size > self.max_file_size:
            self.skipped.append(Skipped(path=path, reason="over the size cap", size=info.st_size, mtime_ns=info.st_mtime_ns))
            return 1
        return 0


class ShadowRepo:
    """The shadow repository of one working directory."""

    def __init__(self, folder: Path, *, root: Path, max_file_size: int = DEFAULT_MAX_FILE_SIZE, max_files: int = DEFAULT_MAX_FILES) -> None:
        self.folder = Path(os.path.realpath(folder))
        self.gitdir = shadow_dir(root, self.folder)
        self.max_file_size = max_file_size
        self.max_files = max_files
        self._repo: Any = None
        self._lock = threading.Lock()

    # --- the repository ------------------------------------------------------------------------
    def _open(self) -> Any:
        if self._repo is not None:
            return self._repo
        pygit2 = _pygit2()
        if not (self.gitdir / "HEAD").exists():
            self.gitdir.mkdir(parents=True, exist_ok=True, mode=0o700)
            pygit2.init_repository(str(self.gitdir), bare=True)
        info = self.gitdir / "info"
        info.mkdir(exist_ok=True)
        (info / "exclude").write_text("".join(f"{pattern}\n" for pattern in DEFAULT_EXCLUDES))
        (info / "attributes").write_text(NO_FILTERS)
        (self.gitdir / "FOLDER").write_text(str(self.folder) + "\n")
        repo = pygit2.Repository(str(self.gitdir))
        for key, value in (("core.bare", False), ("core.worktree", str(self.folder)), ("core.autocrlf", "false"),
                           ("core.safecrlf", "false"), ("core.symlinks", True), ("core.filemode", True),
                           ("core.ignorecase", False)):  # fmt: skip
            repo.config[key] = value
        self._repo = pygit2.Repository(str(self.gitdir))  # opened again: the work tree now applies
        return self._repo

    @contextmanager
    def _exclusive(self) -> Iterator[Any]:
        """One snapshot or write at a time, in this process and across kernels."""
        with self._lock:
            repo = self._open()
            with open(self.gitdir / "nb_agent.lock", "w") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)
                try:
                    yield repo
                finally:
                    fcntl.flock(lock, fcntl.LOCK_UN)

    # --- snapshots -------------------------------------------------------------------------------
    def snapshot(self, message: str = "checkpoint") -> FileSnapshot:
        """Commit the folder as it is now. Raises :class:`CheckpointError` when it cannot
        (a full disk, more files than the cap); the folder itself is never written."""
        started = time.perf_counter()
        try:
            with self._exclusive() as repo:
                return self._snapshot(repo, message, started)
        except CheckpointError:
            raise
        except (OSError, _pygit2().GitError) as exc:
            raise CheckpointError(f"file checkpoints of {self.folder} failed: {exc}") from exc

    def _snapshot(self, repo: Any, message: str, started: float) -> FileSnapshot:
        from pygit2 import C, ffi
        from pygit2.errors import check_error
        from pygit2.utils import StrArray

        index = repo.index
        skipper = _Skipper(str(self.folder), max_file_size=self.max_file_size, max_files=self.max_files)
        callback = ffi.callback("git_index_matched_path_cb", skipper)
        with StrArray([]) as paths:
            error = C.git_index_add_all(index._index, paths.ptr, 0, callback, ffi.NULL)
        if skipper.too_many:
            index.read(True)  # forget the half-made index
            raise CheckpointError(
                f"file checkpoints of {self.folder} are off: it holds more than {self.max_files:,} files "
                "(set AgentMagics.checkpoint_max_files, or add a .gitignore)"
            )
        check_error(error, io=True)
        for skipped in skipper.skipped:  # a file that grew past the cap must not keep its old entry
            if skipped.path.rstrip("/") in index:
                index.remove(skipped.path.rstrip("/"))
        tree = index.write_tree()
        index.write()
        signature = _pygit2().Signature("nb_agent", "nb_agent@localhost")
        parents = [repo.references[SNAPSHOT_REF].target] if SNAPSHOT_REF in repo.references else []
        commit = repo.create_commit(SNAPSHOT_REF, signature, signature, message, tree, parents)
        return FileSnapshot(
            folder=str(self.folder), commit=str(commit), files=len(index),
            skipped=tuple(skipper.skipped[:MAX_SKIPPED]), seconds=time.perf_counter() - started,
        )  # fmt: skip

    # --- reading snapshots -----------------------------------------------------------------------
    def entries(self, commit: str, paths: set[str]) -> dict[str, Entry | None]:
        """``paths`` as they are in snapshot ``commit`` (``None``: absent)."""
        repo = self._open()
        tree = repo[commit].peel(_pygit2().Tree)
        found: dict[str, Entry | None] = {}
        for path in paths:
            try:
                entry = tree[path]
            except KeyError:
                found[path] = None
                continue
            found[path] = (str(entry.id), int(entry.filemode)) if entry.type_str == "blob" else None
        return found

    def changed(self, a: str, b: str) -> set[str]:
        """Paths that differ between snapshots ``a`` and ``b``."""
        repo = self._open()
        diff = repo.diff(repo[a].peel(_pygit2().Tree), repo[b].peel(_pygit2().Tree))
        paths: set[str] = set()
        for delta in diff.deltas:
            paths.add(delta.old_file.path)
            paths.add(delta.new_file.path)
        return paths

    def read(self, entry: Entry) -> bytes:
        """The bytes a snapshot keeps for ``entry``."""
        return bytes(self._open()[entry[0]].data)

    def holds(self, path: str, entry: Entry | None) -> bool:
        """Whether the folder's ``path`` is now exactly ``entry`` (``None``: absent), by content:
        a link, a folder or unreadable file where a file was is not."""
        full = self.folder / path
        try:
            info = os.lstat(full)
        except FileNotFoundError:
            return entry is None
        if entry is None or not stat.S_ISREG(info.st_mode) or info.st_size > self.max_file_size:
            return False
        try:
            return str(_pygit2().hashfile(str(full))) == entry[0]
        except OSError:
            return False

    def has(self, commit: str) -> bool:
        try:
            return self._open().get(commit) is not None
        except (ValueError, _pygit2().GitError):
            return False

    # --- writing back ------------------------------------------------------------------------------
    def write(self, targets: dict[str, Entry | None]) -> WriteOutcome:
        """Make each path what its entry says (``None``: remove it), never through a link.
        A path that cannot be written is reported; the others still are."""
        from nb_agent.checkpoints.safe_fs import delete_file, write_file

        outcome = WriteOutcome()
        with self._exclusive() as repo:
            for path, entry in sorted(targets.items()):
                try:
                    if entry is None:
                        if delete_file(self.folder, path):
                            outcome.deleted.append(path)
                    else:
                        write_file(self.folder, path, repo[entry[0]].data, git_mode=entry[1])
                        outcome.written.append(path)
                except (OSError, CheckpointError) as exc:
                    outcome.failed[path] = str(exc) if isinstance(exc, CheckpointError) else f"{type(exc).__name__}: {exc.strerror or exc}"
        return outcome
