"""Locating and running ripgrep for Grep and Glob.

``rg`` comes from the ``ripgrep`` wheel (an extra of nb_agent), which installs only the
binary into the environment's scripts directory; a system ``rg`` on ``PATH`` also works.

A run is a blocking ``Popen`` on one worker thread of the event loop's default executor:
that thread reads rg's output as it streams and hands complete lines to an optional
consumer (Glob stats them for its newest-first order while rg is still walking). This
costs no extra threads per call and keeps pipe reading off the event loop. rg runs in
its own process group, killed when the call is aborted or cancelled.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import importlib.metadata
import os
import signal
import subprocess
import sys
import sysconfig
import tempfile
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from nb_agent.abort import AbortSignal
from nb_agent.errors import AbortError, ToolError
from nb_agent.executables import which

RG_NAME = "rg.exe" if os.name == "nt" else "rg"
MAX_OUTPUT_BYTES = 64 * 1024 * 1024
"""Stop reading (and kill rg) past this much output; the result says it was cut."""
VCS_DIRECTORIES = (".git", ".svn", ".hg", ".bzr", ".jj", ".sl")
"""Never searched, even with ``--hidden`` / ``--no-ignore``."""


LineConsumer = Callable[[list[str]], None]
"""Receives batches of rg's output lines (no line endings), on the thread reading them."""
MAX_STDERR_BYTES = 64 * 1024
_CHUNK = 1 << 16


@dataclass(frozen=True, kw_only=True)
class RgOutput:
    returncode: int
    stdout: str
    stderr: str
    truncated: bool = False


@functools.lru_cache(maxsize=1)
def find_rg() -> str | None:
    """The ``rg`` executable: the ripgrep wheel's, this environment's, then ``PATH``'s."""
    for candidate in _candidates():
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return os.fspath(candidate)
    return which("rg")


def _candidates() -> list[Path]:
    found: list[Path] = []
    try:
        dist = importlib.metadata.distribution("ripgrep")
        found += [Path(str(dist.locate_file(f))).resolve() for f in dist.files or () if f.name == RG_NAME]
    except importlib.metadata.PackageNotFoundError:
        pass
    scripts = sysconfig.get_path("scripts")
    if scripts:
        found.append(Path(scripts) / RG_NAME)
    found.append(Path(sys.executable).parent / RG_NAME)
    return found


def rg_executable() -> str:
    """``find_rg()`` or a :class:`ToolError` saying how to install it."""
    rg = find_rg()
    if rg is None:
        raise ToolError("ripgrep (rg) is not installed. Install it with `pip install 'nb_agent[tools]'`.")
    return rg


async def run_rg(
    args: Sequence[str],
    *,
    cwd: Path,
    abort_signal: AbortSignal,
    max_output_bytes: int = MAX_OUTPUT_BYTES,
    on_lines: LineConsumer | None = None,
) -> RgOutput:
    """Run ``rg args`` in ``cwd``; raise :class:`AbortError` if ``abort_signal`` fires.

    ``on_lines`` receives the output's lines in batches while rg is still running (so
    per-line work such as ``stat`` overlaps the search).
    """
    run = _RgRun([rg_executable(), *args], cwd=cwd, max_output_bytes=max_output_bytes, on_lines=on_lines)
    remove = abort_signal.add_callback(lambda _reason: run.kill())
    future = asyncio.get_running_loop().run_in_executor(None, run.run)
    try:
        output = await asyncio.shield(future)
    except asyncio.CancelledError:
        run.kill()
        with contextlib.suppress(Exception):
            await future  # rg is reaped before the cancellation propagates
        raise
    finally:
        remove()
    if abort_signal.aborted:
        raise AbortError(abort_signal.reason or "Interrupted by user")
    return output


class _RgRun:
    """One rg process: started, read and reaped on a worker thread; killable from any thread."""

    def __init__(self, argv: list[str], *, cwd: Path, max_output_bytes: int, on_lines: LineConsumer | None) -> None:
        self._argv = argv
        self._cwd = cwd
        self._max_output_bytes = max_output_bytes
        self._on_lines = on_lines
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._killed = False

    def kill(self) -> None:
        """Kill rg's process group now, or as soon as it starts."""
        with self._lock:
            self._killed = True
            proc = self._proc
            if proc is None or proc.returncode is not None:
                # Not started yet (run() kills it on start), or reaped: its pid may be reused.
                # (As with Popen.send_signal, a kill racing the reaping itself is not excluded.)
                return
            try:
                if os.name == "nt":
                    proc.kill()
                else:
                    os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass

    def run(self) -> RgOutput:
        # stderr goes to a file: a pipe nobody reads could fill up and block rg.
        with tempfile.TemporaryFile() as err:
            try:
                proc = subprocess.Popen(
                    self._argv,
                    cwd=self._cwd,
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.PIPE,
                    stderr=err,
                    start_new_session=os.name != "nt",  # its own process group, killed as a whole
                )
            except OSError as exc:
                raise ToolError(f"Cannot run ripgrep in {self._cwd}: {exc.strerror or exc}.") from exc
            with self._lock:
                self._proc = proc
            if self._killed:
                self.kill()
            try:
                stdout, truncated = self._read_stdout(proc)
            finally:
                proc.stdout.close()  # type: ignore[union-attr]
                returncode = proc.wait()
            err.seek(0)
            stderr = err.read(MAX_STDERR_BYTES)
        return RgOutput(
            returncode=returncode,
            stdout=stdout.decode("utf-8", "replace"),
            stderr=stderr.decode("utf-8", "replace"),
            truncated=truncated,
        )

    def _read_stdout(self, proc: subprocess.Popen[bytes]) -> tuple[bytes, bool]:
        fd = proc.stdout.fileno()  # type: ignore[union-attr]
        chunks: list[bytes] = []
        size = 0
        pending = b""
        while chunk := os.read(fd, _CHUNK):
            if size + len(chunk) > self._max_output_bytes:
                chunks.append(chunk[: self._max_output_bytes - size])
                self.kill()
                return b"".join(chunks), True
            chunks.append(chunk)
            size += len(chunk)
            if self._on_lines is not None:
                data = pending + chunk
                cut = data.rfind(b"\n") + 1
                pending = data[cut:]
                if cut:
                    _feed(self._on_lines, data[:cut])
        if self._on_lines is not None and pending:
            _feed(self._on_lines, pending)
        return b"".join(chunks), False


def _feed(consumer: LineConsumer, data: bytes) -> None:
    lines = data.decode("utf-8", "replace").split("\n")
    consumer([line.removesuffix("\r") for line in lines if line])
