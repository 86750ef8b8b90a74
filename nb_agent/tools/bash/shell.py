"""Run one shell command in its own process group, its output spilled to a file (SPEC §8).

Why a file and not a pipe: the command writes stdout and stderr straight into one file
(same open file, so the two streams stay interleaved in order), which

* keeps memory bounded whatever the command prints (only a head and a tail are read back);
* lets a command moved to the background keep running with nobody reading it (a pipe
  would fill up and block the command whenever the event loop is busy or gone);
* does not tie the process to an event loop: the process is a plain ``subprocess.Popen``
  polled without blocking, so it survives the loop that started it (an asyncio subprocess
  transport kills its child when the loop closes, which would kill background shells).

Every command runs with ``start_new_session=True``: it leads a new process group, so one
``os.killpg`` reaches its children and grandchildren, and the kernel's SIGINT (sent to the
kernel's own group) never reaches it; nb_agent kills the group itself on abort.
"""

from __future__ import annotations

import asyncio
import atexit
import codecs
import os
import shlex
import signal
import subprocess
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from nb_agent.abort import AbortSignal
from nb_agent.executables import search_path, which
from nb_agent.tools.base import ProgressCallback
from nb_agent.tools.bash import output_cap

WaitOutcome = Literal["exited", "timed_out", "aborted"]
CommandWrapper = Callable[..., tuple[list[str], dict[str, str]]]
"""``wrapper(argv, env, cwd=..., cwd_file=...) -> (argv, env)``: runs the shell inside a
sandbox (:mod:`nb_agent.tools.bash.sandbox`); ``cwd_file`` is the one file it must let the
shell write."""

TERMINATE_GRACE_SECONDS = 1.0
"""Time between SIGTERM and SIGKILL when a command is stopped."""
PROGRESS_INTERVAL_SECONDS = 0.1
"""At most ten progress reports a second."""
PROGRESS_IDLE_SECONDS = 1.0
"""With no new output, still report (elapsed time) this often."""
PROGRESS_TAIL_LINES = 20
_RESEND_TERM_SECONDS = 0.1
_POLL_MIN_SECONDS = 0.001
_POLL_MAX_SECONDS = 0.05
_COUNT_CHUNK_BYTES = 256 * 1024
_TAIL_READ_BYTES = 8 * 1024


def shell_env(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of a Bash command: the kernel's, minus what breaks outside it."""
    env = dict(os.environ if base is None else base)
    # ipykernel sets MPLBACKEND to its inline backend, which only works inside a kernel.
    if env.get("MPLBACKEND", "").startswith("module://matplotlib_inline"):
        del env["MPLBACKEND"]
    # Nothing may wait for a terminal: there is none, and stdin is /dev/null.
    env.update({"GIT_EDITOR": "true", "PAGER": "cat", "GIT_PAGER": "cat", "NB_AGENT": "1"})
    if "PATH" in env:  # `ls` must never be the folder's ./ls (see nb_agent.executables)
        env["PATH"] = search_path(env["PATH"])
    return env


@dataclass(kw_only=True, eq=False)
class RunningCommand:
    """A started command: its process (a group leader), output file and cwd file."""

    command: str
    process: subprocess.Popen[bytes]
    output_path: Path
    cwd_path: Path
    """Where the shell writes ``pwd -P`` when it exits (so ``cd`` can persist)."""
    started_at: float = field(default_factory=time.monotonic)
    sandboxed: bool = False
    """Started through a sandbox wrapper."""
    on_exit: Callable[[], list[str]] | None = None
    """Run once when the shell is first seen exited (the sandbox undoes forbidden creations);
    what it returns is kept in :attr:`exit_notes`."""
    exit_notes: list[str] = field(default_factory=list)
    output_capped: bool = False
    """The output passed the 64 MB cap and was cut (see ``output_cap``)."""
    killed: bool = False
    """True once nb_agent signalled the group (abort, timeout, KillShell)."""

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def elapsed(self) -> float:
        return time.monotonic() - self.started_at

    def poll(self) -> int | None:
        """The shell's exit code once it has exited (a signal N reads as 128+N), else None."""
        code = self.process.poll()
        if code is None:
            return None
        if self.on_exit is not None:
            on_exit, self.on_exit = self.on_exit, None
            self.exit_notes.extend(on_exit())
        return 128 - code if code < 0 else code

    def output_size(self) -> int:
        try:
            return self.output_path.stat().st_size
        except OSError:
            return 0

    def tail_text(self, max_lines: int = PROGRESS_TAIL_LINES) -> str:
        """The last lines of output so far (for progress display)."""
        return tail_text(self.output_path, max_lines=max_lines)

    def final_cwd(self) -> Path | None:
        """The directory the shell ended in, when it recorded one that still exists."""
        try:
            text = self.cwd_path.read_text(encoding="utf-8", errors="surrogateescape").rstrip("\n")
        except OSError:
            return None
        if not text:
            return None
        path = Path(text)
        return path if path.is_dir() else None

    def discard_cwd_file(self) -> None:
        self.cwd_path.unlink(missing_ok=True)

    def group_alive(self) -> bool:
        """Whether any live (non-zombie) process is left in the command's group."""
        self.process.poll()  # reap the leader so it does not count as alive
        return _group_alive(self.pid)

    async def wait(
        self,
        *,
        timeout: float | None,
        abort_signal: AbortSignal | None = None,
        on_progress: ProgressCallback | None = None,
    ) -> WaitOutcome:
        """Wait for the shell to exit, the timeout (seconds from start) or an abort.

        Does not stop the command on timeout or abort: the caller decides (kill or move to
        the background). If the wait itself is cancelled (kernel interrupt) or the progress
        callback raises, the group is terminated before the exception propagates.
        """
        deadline = None if timeout is None else self.started_at + timeout
        reporter = _ProgressReporter(self, on_progress) if on_progress is not None else None
        interval = _POLL_MIN_SECONDS
        exit_watch = _ExitWatch.start(self.process.pid)
        try:
            while True:
                if self.poll() is not None:
                    return "exited"
                if abort_signal is not None and abort_signal.aborted:
                    return "aborted"
                now = time.monotonic()
                if deadline is not None and now >= deadline:
                    return "timed_out"
                if reporter is not None:
                    reporter.maybe_report(now)
                sleep_for = interval if deadline is None else min(interval, max(deadline - now, 0.0))
                if exit_watch is None:
                    await asyncio.sleep(sleep_for)
                else:
                    await exit_watch.wait(sleep_for)
                # Fast commands are seen within a few ms; long ones cost ~20 wakeups/s.
                interval = min(interval * 2, _POLL_MAX_SECONDS)
        except BaseException:
            await self.terminate()
            raise
        finally:
            if exit_watch is not None:
                exit_watch.close()

    async def terminate(self, *, grace: float | None = None) -> None:
        """SIGTERM the whole group, then SIGKILL whatever is left after ``grace`` seconds
        (default :data:`TERMINATE_GRACE_SECONDS`)."""
        if not self.group_alive():
            self.poll()
            return
        self.killed = True
        _signal_group(self.pid, signal.SIGTERM)
        now = time.monotonic()
        deadline = now + (TERMINATE_GRACE_SECONDS if grace is None else grace)
        resend_at = now + _RESEND_TERM_SECONDS
        try:
            while (now := time.monotonic()) < deadline and self.group_alive():
                if now >= resend_at:
                    # A child forked while the first signal was in flight never got it.
                    _signal_group(self.pid, signal.SIGTERM)
                    resend_at = now + _RESEND_TERM_SECONDS
                await asyncio.sleep(0.01)
        finally:
            # Also reached when this wait is cancelled again: never leave survivors.
            self.kill_now()

    def kill_now(self) -> None:
        """SIGKILL the group at once and reap the shell (synchronous; safe in ``atexit``)."""
        if self.group_alive():
            self.killed = True
            _signal_group(self.pid, signal.SIGKILL)
        try:
            self.process.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            pass
        self.poll()


def start_command(
    command: str,
    *,
    cwd: Path,
    output_dir: Path,
    env: Mapping[str, str] | None = None,
    wrapper: CommandWrapper | None = None,
) -> RunningCommand:
    """Start ``command`` under ``bash -c`` in ``cwd``, output to a new file in ``output_dir``.

    stdin is /dev/null (nothing can prompt); stdout and stderr share the output file.
    With ``wrapper`` the shell runs inside what it returns (a sandbox); the process
    started is still the group leader, so kills and waits are unchanged.
    """
    bash = which("bash") or "/bin/bash"
    output_dir.mkdir(parents=True, exist_ok=True)
    stem = f"bash-{time.strftime('%Y%m%d-%H%M%S')}-{uuid.uuid4().hex[:8]}"
    output_path = output_dir / f"{stem}.out"
    cwd_path = output_dir / f"{stem}.cwd"
    # An EXIT trap records the final directory even after a failing command or `exit N`,
    # and keeps the exit status. A function avoids nesting quotes inside the trap string;
    # one line, so bash's error messages give the command's own line numbers.
    script = (
        f"__nb_agent_record_cwd() {{ pwd -P >| {shlex.quote(str(cwd_path))} 2>/dev/null; }}; "
        f"trap __nb_agent_record_cwd EXIT; {command}\n"
    )
    argv, full_env = [bash, "-c", script, "bash"], shell_env(env)  # "bash" is $0 in error messages
    if wrapper is not None:
        argv, full_env = wrapper(argv, full_env, cwd=cwd, cwd_file=cwd_path)
    _reap_finished()
    fd = os.open(output_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND, 0o600)
    try:
        process = subprocess.Popen(  # running the model's command is the point
            argv,
            cwd=cwd,
            env=full_env,
            stdin=subprocess.DEVNULL,
            stdout=fd,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            close_fds=True,
            pass_fds=getattr(wrapper, "pass_fds", ()),  # the sandbox's seccomp program
        )
    finally:
        os.close(fd)
        started = getattr(wrapper, "started", None)
        if started is not None:
            started()
    running = RunningCommand(
        command=command, process=process, output_path=output_path, cwd_path=cwd_path, sandboxed=wrapper is not None
    )
    running.on_exit = getattr(wrapper, "after_exit", None)
    _remember(running)
    return running


_default_output_dir: Path | None = None
_default_output_dir_lock = threading.Lock()


def default_output_dir() -> Path:
    """A per-process temporary directory for output files when a session has none."""
    global _default_output_dir
    with _default_output_dir_lock:
        if _default_output_dir is None:
            _default_output_dir = Path(tempfile.mkdtemp(prefix="nb_agent-bash-"))
        return _default_output_dir


# --- reading output back -------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class OutputSlice:
    """A bounded view of a byte range of an output file.

    When the range did not fit, ``head`` and ``tail`` are its first and last whole lines
    and ``omitted_lines`` counts the lines in between; otherwise ``tail`` is empty.
    """

    head: str
    tail: str = ""
    omitted_lines: int = 0
    total_bytes: int
    end_offset: int
    """Where the next read should start (a trailing partial UTF-8 character is left)."""
    truncated: bool = False

    def render(self) -> str:
        if not self.truncated:
            return self.head
        head = self.head.rstrip("\n")
        return f"{head}\n\n... [{self.omitted_lines} lines truncated] ...\n\n{self.tail}"


def read_output_slice(
    path: Path,
    *,
    max_chars: int,
    start: int = 0,
    end: int | None = None,
    final: bool = True,
) -> OutputSlice:
    """Read bytes ``[start, end)`` of ``path`` as text of at most about ``max_chars`` chars.

    Memory stays bounded by ``max_chars`` whatever the file size: a long range is read as
    its head and tail, and the lines between are counted in fixed-size chunks. With
    ``final`` False (the writer is still running) a trailing partial UTF-8 character is
    left for the next read instead of being decoded as garbage.
    """
    if end is None:
        try:
            end = path.stat().st_size
        except OSError:
            end = start
    size = max(end - start, 0)
    if size == 0:
        return OutputSlice(head="", total_bytes=0, end_offset=start)
    with path.open("rb") as f:
        # Up to 4 bytes a character: a range this small may still fit once decoded.
        if size <= 4 * max_chars:
            f.seek(start)
            data = f.read(size)
            decoder = codecs.getincrementaldecoder("utf-8")("replace")
            text = decoder.decode(data, final=final)
            pending = len(decoder.getstate()[0])
            if len(text) <= max_chars:
                return OutputSlice(head=text, total_bytes=size, end_offset=end - pending)
        half = max(max_chars // 2 - 64, 1)  # leave room for the marker line
        f.seek(start)
        head = _cut_after_last_newline(f.read(half))
        tail_start = max(end - half, start + len(head))
        f.seek(tail_start)
        tail = f.read(end - tail_start)
        if not final:
            tail = tail[: len(tail) - _partial_utf8_suffix(tail)]
        tail, tail_start = _cut_before_first_newline(tail, tail_start)
        omitted = _count_lines(f, start + len(head), tail_start)
    return OutputSlice(
        head=_decode_head(head),
        tail=_decode_tail(tail),
        omitted_lines=omitted,
        total_bytes=size,
        end_offset=tail_start + len(tail),
        truncated=True,
    )


def tail_text(path: Path, *, max_lines: int = PROGRESS_TAIL_LINES, max_bytes: int = _TAIL_READ_BYTES) -> str:
    """The last ``max_lines`` lines of a file, reading at most ``max_bytes`` from its end."""
    try:
        with path.open("rb") as f:
            f.seek(0, os.SEEK_END)
            size = f.tell()
            f.seek(max(size - max_bytes, 0))
            data = f.read()
    except OSError:
        return ""
    lines = _decode_tail(data).removesuffix("\n").split("\n")
    # A carriage return redraws a line in a terminal; show what the terminal would show.
    return "\n".join(line.rsplit("\r", 1)[-1] for line in lines[-max_lines:])


def _cut_after_last_newline(data: bytes) -> bytes:
    index = data.rfind(b"\n")
    # Only cut at a newline if that keeps most of the text (one huge line stays cut mid-line).
    return data[: index + 1] if index >= len(data) // 2 else data


def _cut_before_first_newline(data: bytes, offset: int) -> tuple[bytes, int]:
    index = data.find(b"\n")
    if 0 <= index < len(data) // 2:
        return data[index + 1 :], offset + index + 1
    return data, offset


def _count_lines(f: Any, start: int, end: int) -> int:
    """Lines in ``[start, end)``: newlines, plus one for a final line without one."""
    f.seek(start)
    remaining = end - start
    count = 0
    last = b""
    while remaining > 0:
        chunk = f.read(min(_COUNT_CHUNK_BYTES, remaining))
        if not chunk:
            break
        count += chunk.count(b"\n")
        last = chunk[-1:]
        remaining -= len(chunk)
    return count + (1 if last and last != b"\n" else 0)


def _partial_utf8_suffix(data: bytes) -> int:
    """How many bytes at the end of ``data`` start an incomplete UTF-8 character."""
    for back in range(1, min(4, len(data)) + 1):
        byte = data[-back]
        if byte & 0xC0 == 0x80:  # continuation byte: keep looking for the lead byte
            continue
        needed = 2 if byte & 0xE0 == 0xC0 else 3 if byte & 0xF0 == 0xE0 else 4 if byte & 0xF8 == 0xF0 else 1
        return back if needed > back else 0
    return 0


def _decode_head(data: bytes) -> str:
    # A character cut at the end of the head is dropped, not shown as U+FFFD.
    return codecs.getincrementaldecoder("utf-8")("replace").decode(data, final=False)


def _decode_tail(data: bytes) -> str:
    skip = 0
    while skip < min(3, len(data)) and data[skip] & 0xC0 == 0x80:
        skip += 1
    return data[skip:].decode("utf-8", errors="replace")


# --- progress ---------------------------------------------------------------------------


class _ProgressReporter:
    """Rate-limits progress reports: at most every 0.1 s, at least every 1 s while running."""

    def __init__(self, command: RunningCommand, callback: ProgressCallback) -> None:
        self._command = command
        self._callback = callback
        self._last_time = command.started_at
        self._last_size = 0

    def maybe_report(self, now: float) -> None:
        since = now - self._last_time
        if since < PROGRESS_INTERVAL_SECONDS:
            return
        size = self._command.output_size()
        if size == self._last_size and since < PROGRESS_IDLE_SECONDS:
            return
        self._last_time, self._last_size = now, size
        self._callback(
            {
                "output_tail": self._command.tail_text(),
                "total_bytes": size,
                "elapsed": round(now - self._command.started_at, 3),
            }
        )


# --- process groups ---------------------------------------------------------------------


class _ExitWatch:
    """Wakes a wait the moment the process exits (a Linux pidfd on the event loop), so a
    command slower than the first polls is not seen up to a poll interval late."""

    def __init__(self, loop: asyncio.AbstractEventLoop, fd: int) -> None:
        self._loop = loop
        self._fd = fd
        self._exited: asyncio.Future[None] = loop.create_future()
        loop.add_reader(fd, self._on_exit)

    @classmethod
    def start(cls, pid: int) -> _ExitWatch | None:
        """None where pidfds or reader callbacks are unavailable (then polling alone)."""
        pidfd_open = getattr(os, "pidfd_open", None)
        if pidfd_open is None:
            return None
        try:
            fd = pidfd_open(pid)
        except OSError:
            return None
        try:
            return cls(asyncio.get_running_loop(), fd)
        except (NotImplementedError, RuntimeError, OSError):
            os.close(fd)
            return None

    def _on_exit(self) -> None:
        if not self._exited.done():
            self._exited.set_result(None)
        self._loop.remove_reader(self._fd)

    async def wait(self, timeout: float) -> None:
        await asyncio.wait({self._exited}, timeout=timeout)

    def close(self) -> None:
        self._loop.remove_reader(self._fd)
        os.close(self._fd)


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # killpg also counts zombies (orphans whose reaper is slow or absent): look closer.
    live = _live_group_members(pgid)
    return True if live is None else live


def _live_group_members(pgid: int) -> bool | None:
    """Whether /proc shows a non-zombie process in group ``pgid`` (None without /proc)."""
    proc = Path("/proc")
    if not (proc / "self" / "stat").exists():
        return None
    with os.scandir(proc) as entries:
        for entry in entries:
            if not entry.name.isdigit():
                continue
            try:
                with open(f"/proc/{entry.name}/stat", "rb") as f:
                    stat = f.read()
            except OSError:
                continue
            # Fields after the parenthesised command name: state ppid pgrp ...
            fields = stat[stat.rfind(b")") + 2 :].split()
            if len(fields) >= 3 and int(fields[2]) == pgid and fields[0] not in (b"Z", b"X"):
                return True
    return False


# Every command whose process group may still be running (including `cmd &` children of a
# shell that has exited), so interpreter exit can kill them: a new session is out of reach
# of the kernel's own signals, so nothing else would.
_live: set[RunningCommand] = set()
_live_lock = threading.Lock()
_atexit_registered = False


def _live_commands() -> list[RunningCommand]:
    with _live_lock:
        return list(_live)


def _remember(command: RunningCommand) -> None:
    global _atexit_registered
    output_cap.start_watchdog(_live_commands, lambda: output_cap.MAX_OUTPUT_FILE_BYTES)
    with _live_lock:
        _live.add(command)
        if not _atexit_registered:
            atexit.register(kill_all_running)
            _atexit_registered = True


def _reap_finished() -> None:
    """Reap shells that exited unobserved (no zombies) and forget groups that are gone."""
    with _live_lock:
        commands = list(_live)
    done = [c for c in commands if c.poll() is not None and not _group_alive(c.pid)]
    with _live_lock:
        _live.difference_update(done)


def kill_all_running() -> None:
    """SIGKILL every process group nb_agent started that is still alive (run at exit)."""
    with _live_lock:
        commands = list(_live)
        _live.clear()
    for command in commands:
        command.kill_now()
