"""Background shells (SPEC §8): commands started with ``run_in_background`` or moved there
when they hit their timeout, plus the tools that read (``BashOutput``) and stop
(``KillShell``) them.

The registry lives in ``ToolSession.resources.background_shells``, so shells belong to a
session and outlive the tool call (and the cell) that started them.
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from nb_agent.errors import ToolError
from nb_agent.shell.parse import parser_unavailable_reason
from nb_agent.tools.base import ProgressCallback, Tool, ToolResult, ToolSession, ToolUseContext, ValidationResult
from nb_agent.tools.bash import output_cap
from nb_agent.tools.bash.shell import RunningCommand, read_output_slice

ShellStatus = Literal["running", "completed", "failed", "killed"]

BACKGROUND_OUTPUT_MAX_CHARS = 30_000
_NOTES_RESERVE_CHARS = 1_000
_LINE_CHUNK_BYTES = 256 * 1024
_MAX_LINE_BYTES = 1024 * 1024
"""A 'line' longer than this is filtered in pieces, so memory stays bounded."""


@dataclass(kw_only=True, eq=False)
class BackgroundShell:
    """One background command and how far the model has read its output."""

    id: str
    command: RunningCommand
    description: str | None = None
    read_offset: int = 0
    """Bytes of the output file already returned by ``BashOutput``."""
    cap_noticed: bool = False
    notified: bool = False
    """Whether the loop has already told the model that this shell finished."""

    @property
    def exit_code(self) -> int | None:
        return self.command.poll()

    @property
    def status(self) -> ShellStatus:
        code = self.command.poll()
        if code is None:
            return "running"
        if self.command.killed:
            return "killed"
        return "completed" if code == 0 else "failed"

    def read_new_output(self, *, pattern: re.Pattern[str] | None = None, max_chars: int) -> str:
        """Output written since the last read (only lines matching ``pattern`` if given).

        Advances the read offset: lines filtered out are not shown again. While the
        command runs, a partial last line (with a filter) or a partial UTF-8 character
        is left for the next read.
        """
        final = self.command.poll() is not None  # decide before sizing: all output is in
        output_cap.enforce_cap(self.command, output_cap.MAX_OUTPUT_FILE_BYTES)
        end = self.command.output_size()
        self.read_offset = min(self.read_offset, end)  # the file may have been cut back
        notice = ""
        if self.command.output_capped and not self.cap_noticed:
            self.cap_noticed = True
            notice = output_cap.capped_notice(output_cap.MAX_OUTPUT_FILE_BYTES) + "\n"
        if pattern is None:
            chunk = read_output_slice(
                self.command.output_path, max_chars=max_chars, start=self.read_offset, end=end, final=final
            )
            self.read_offset = chunk.end_offset
            return notice + chunk.render()
        text, self.read_offset = _matching_lines(
            self.command.output_path, start=self.read_offset, end=end, pattern=pattern, final=final, max_chars=max_chars
        )
        return notice + text


class BackgroundShells:
    """The background shells of one session, by id (``bash_1``, ``bash_2``, …)."""

    def __init__(self) -> None:
        self._shells: dict[str, BackgroundShell] = {}
        self._counter = 0

    @classmethod
    def for_session(cls, session: ToolSession) -> BackgroundShells:
        """The session's registry, created on first use."""
        registry = session.resources.background_shells
        if registry is None:
            registry = session.resources.background_shells = cls()
        return registry

    def adopt(self, command: RunningCommand, *, description: str | None = None) -> BackgroundShell:
        """Register a started command (new, or a foreground one that timed out)."""
        self._counter += 1
        shell = BackgroundShell(id=f"bash_{self._counter}", command=command, description=description)
        self._shells[shell.id] = shell
        return shell

    def get(self, shell_id: str) -> BackgroundShell | None:
        return self._shells.get(shell_id)

    def shells(self) -> list[BackgroundShell]:
        return list(self._shells.values())

    def running(self) -> list[BackgroundShell]:
        return [shell for shell in self._shells.values() if shell.status == "running"]

    def take_finished(self) -> list[BackgroundShell]:
        """Shells that finished since the last call (for a "shell finished" notice)."""
        finished = [s for s in self._shells.values() if not s.notified and s.status != "running"]
        for shell in finished:
            shell.notified = True
        return finished

    async def kill(self, shell_id: str) -> BackgroundShell:
        """Terminate a shell's whole process group. Raises ``KeyError`` for an unknown id."""
        shell = self._shells[shell_id]
        await shell.command.terminate()
        return shell

    async def kill_all(self) -> None:
        """Terminate every running shell (session shutdown)."""
        for shell in self.running():
            await shell.command.terminate()

    def kill_all_now(self) -> None:
        """SIGKILL every running shell at once (synchronous; safe in ``atexit``)."""
        for shell in self._shells.values():
            shell.command.kill_now()


# --- tools ------------------------------------------------------------------------------


class BashOutputInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    bash_id: str = Field(description="The ID of the background shell to retrieve output from")
    filter: str | None = Field(
        default=None,
        description=(
            "Optional regular expression to filter the output lines. Only lines matching this regex "
            "will be included in the result. Any lines that do not match will no longer be available to read."
        ),
    )


class BashOutputTool(Tool[BashOutputInput]):
    """Read what a background shell printed since the last read, with its status."""

    name = "BashOutput"
    input_model = BashOutputInput
    repeats_its_content = True  # the structured output is its text again: kept once
    max_result_size_chars = BACKGROUND_OUTPUT_MAX_CHARS

    def unavailable_reason(self) -> str | None:
        return parser_unavailable_reason()  # offered with Bash, or not at all

    def prompt(self) -> str:
        return (
            "Retrieves output from a running or completed background bash shell.\n"
            "- Takes a bash_id parameter identifying the shell (returned by Bash when a command runs "
            "in the background or was moved there after its timeout)\n"
            "- Always returns only new output since the last check, with the shell's status "
            "(running, completed, failed, killed) and exit code once finished\n"
            "- stdout and stderr are merged in the order they were written\n"
            "- Supports an optional regex filter to show only matching lines\n"
            "- Use this tool to monitor or check the output of a long-running shell"
        )

    def is_read_only(self, input: BashOutputInput) -> bool:
        return True

    def is_concurrency_safe(self, input: BashOutputInput) -> bool:
        return True

    async def validate_input(self, input: BashOutputInput, ctx: ToolUseContext) -> ValidationResult:
        if input.filter is not None:
            try:
                re.compile(input.filter)
            except re.error as error:
                return ValidationResult.failed(f"Invalid regular expression {input.filter!r}: {error}")
        return ValidationResult.passed()

    async def call(self, input: BashOutputInput, ctx: ToolUseContext, on_progress: ProgressCallback) -> ToolResult:
        shell = BackgroundShells.for_session(ctx.session).get(input.bash_id)
        if shell is None:
            raise ToolError(f"No shell found with ID: {input.bash_id}")
        pattern = re.compile(input.filter) if input.filter is not None else None
        status, exit_code = shell.status, shell.exit_code  # before reading: output is complete if done
        output = shell.read_new_output(pattern=pattern, max_chars=int(self.max_result_size_chars) - _NOTES_RESERVE_CHARS)
        parts = [f"<shell_id>{shell.id}</shell_id>", f"<status>{status}</status>"]
        if exit_code is not None:
            parts.append(f"<exit_code>{exit_code}</exit_code>")
        if output:
            parts.append(f"<output>\n{output.rstrip(chr(10))}\n</output>")
        else:
            parts.append("<output>(no new output)</output>")
        if pattern is not None:
            parts.append(f"<filter>{input.filter}</filter>")
        return ToolResult(data="\n".join(parts))


class KillShellInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    shell_id: str = Field(description="The ID of the background shell to kill")


class KillShellTool(Tool[KillShellInput]):
    """Stop a background shell (its whole process group)."""

    name = "KillShell"
    input_model = KillShellInput

    def unavailable_reason(self) -> str | None:
        return parser_unavailable_reason()  # offered with Bash, or not at all

    def prompt(self) -> str:
        return (
            "Kills a running background bash shell by its ID.\n"
            "- Takes a shell_id parameter identifying the shell to kill\n"
            "- Stops the command and every process it started\n"
            "- Use this tool when you need to terminate a long-running shell"
        )

    async def call(self, input: KillShellInput, ctx: ToolUseContext, on_progress: ProgressCallback) -> ToolResult:
        registry = BackgroundShells.for_session(ctx.session)
        shell = registry.get(input.shell_id)
        if shell is None:
            raise ToolError(f"No shell found with ID: {input.shell_id}")
        if shell.status != "running":
            raise ToolError(f"Shell {shell.id} is not running, so cannot be killed (status: {shell.status})")
        await registry.kill(shell.id)
        return ToolResult(data=f"Successfully killed shell: {shell.id} ({shell.command.command})")


# --- filtered reading -------------------------------------------------------------------


class _BoundedLines:
    """Keeps the first and last lines up to a character budget; counts the ones dropped."""

    def __init__(self, max_chars: int) -> None:
        self._half = max(max_chars // 2 - 64, 1)
        self._head: list[str] = []
        self._head_chars = 0
        self._tail: deque[str] = deque()
        self._tail_chars = 0
        self.omitted = 0

    def add(self, line: str) -> None:
        if not self._tail and self._head_chars + len(line) + 1 <= self._half:
            self._head.append(line)
            self._head_chars += len(line) + 1
            return
        self._tail.append(line)
        self._tail_chars += len(line) + 1
        while self._tail_chars > self._half and self._tail:
            self._tail_chars -= len(self._tail.popleft()) + 1
            self.omitted += 1

    def render(self) -> str:
        head = "\n".join(self._head)
        tail = "\n".join(self._tail)
        if not self.omitted:
            return "\n".join(part for part in (head, tail) if part)
        return f"{head}\n\n... [{self.omitted} lines truncated] ...\n\n{tail}"


def _matching_lines(
    path: Path, *, start: int, end: int, pattern: re.Pattern[str], final: bool, max_chars: int
) -> tuple[str, int]:
    """Matching lines of bytes ``[start, end)`` and the offset the next read starts at."""
    kept = _BoundedLines(max_chars)
    carry = b""
    position = start
    with path.open("rb") as f:
        f.seek(start)
        while position < end:
            chunk = f.read(min(_LINE_CHUNK_BYTES, end - position))
            if not chunk:
                break
            position += len(chunk)
            # Split bytes, not text: b"\n" never occurs inside a UTF-8 character.
            lines = (carry + chunk).split(b"\n")
            carry = lines.pop()
            if len(carry) > _MAX_LINE_BYTES:
                lines.append(carry)
                carry = b""
            for raw in lines:
                line = raw.decode("utf-8", errors="replace")
                if pattern.search(line):
                    kept.add(line)
    if final and carry:
        line = carry.decode("utf-8", errors="replace")
        if pattern.search(line):
            kept.add(line)
        carry = b""
    return kept.render(), position - len(carry)
