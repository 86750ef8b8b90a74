"""The Bash tool (SPEC §8): run a command, track ``cd``, truncate output, time out into
the background.

Execution lives in :mod:`nb_agent.tools.bash.shell`, background shells in
:mod:`nb_agent.tools.bash.background`, the read-only classifier in
:mod:`nb_agent.shell.read_only`; this module turns their pieces into a tool result.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from nb_agent.messages import ContentBlock, SystemMessage
from nb_agent.shell.parse import parser_unavailable_reason
from nb_agent.shell.programs import program_spec
from nb_agent.shell.read_only import is_read_only_command
from nb_agent.tools.base import (
    InterruptBehavior,
    ProgressCallback,
    Tool,
    ToolResult,
    ToolSession,
    ToolUseContext,
    ValidationResult,
)
from nb_agent.tools.bash import output_cap
from nb_agent.tools.bash.background import BackgroundShells
from nb_agent.tools.bash.sandbox.runtime import SandboxDecision, SandboxRuntime, command_wrapper
from nb_agent.tools.bash.sandbox.violations import sandbox_failure_hint
from nb_agent.tools.bash.shell import RunningCommand, default_output_dir, read_output_slice, start_command
from nb_agent.tools.services import TimeoutAction

DEFAULT_TIMEOUT_MS = 120_000
MAX_TIMEOUT_MS = 600_000
BASH_MAX_RESULT_CHARS = 30_000
_NOTES_RESERVE_CHARS = 1_000
"""Room kept for the notes after the output, so the whole result stays under the cap
(and is not persisted a second time by the executor's large-result handling)."""

class BashInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    command: str = Field(description="The command to execute")
    timeout: int | None = Field(
        default=None, gt=0, le=MAX_TIMEOUT_MS, description=f"Optional timeout in milliseconds (max {MAX_TIMEOUT_MS})"
    )
    description: str | None = Field(
        default=None,
        description=(
            "Clear, concise description of what this command does in 5-10 words, in active voice. "
            "Examples: 'List files in current directory', 'Install package dependencies', "
            "'Run the test suite'"
        ),
    )
    run_in_background: bool = Field(
        default=False,
        description="Set to true to run this command in the background. Use BashOutput to read the output later.",
    )
    dangerouslyDisableSandbox: bool = Field(  # Claude Code's name
        default=False,
        description=(
            "Set to true to run this command outside the sandbox. Only after a command failed because of the "
            "sandbox and the user agreed; the run needs the user's approval."
        ),
    )


class BashResult(BaseModel):
    """What a Bash call produced; :meth:`to_text` is what the model reads.

    A (frozen) pydantic model rather than a dataclass so PostToolUse hooks and the
    transcript get it as JSON.
    """

    model_config = ConfigDict(frozen=True)

    command: str
    output: str = ""
    """Merged stdout and stderr, truncated around ``[N lines truncated]`` when long."""
    exit_code: int | None = None
    exit_meaning: str | None = None
    """What a non-zero but benign exit code means (``grep`` → 'No matches found')."""
    output_path: Path | None = None
    """The full output on disk, when kept (truncated output or a background shell)."""
    total_bytes: int = 0
    truncated: bool = False
    interrupted: bool = False
    timed_out_after_ms: int | None = None
    background_id: str | None = None
    sandboxed: bool = False
    """Whether the command ran inside the OS sandbox (never claimed when it did not)."""
    notes: tuple[str, ...] = ()

    @property
    def is_error(self) -> bool:
        if self.background_id is not None:
            return False
        if self.interrupted or self.timed_out_after_ms is not None:
            return True
        return bool(self.exit_code) and self.exit_meaning is None

    def to_text(self) -> str:
        if self.background_id is not None:
            return self._background_text()
        lines = [self.output.rstrip("\n") or "(no output)"]
        if self.truncated and self.output_path is not None:
            lines.append(f"Full output ({self.total_bytes} bytes) saved to: {self.output_path}")
        if self.timed_out_after_ms is not None:
            lines.append(f"Command timed out after {_seconds(self.timed_out_after_ms)}")
        elif self.interrupted:
            lines.append("Command was aborted before completion")
        elif self.exit_code:
            meaning = f" ({self.exit_meaning})" if self.exit_meaning else ""
            lines.append(f"Exit code {self.exit_code}{meaning}")
        lines.extend(self.notes)
        return "\n".join(lines)

    def _background_text(self) -> str:
        shell_id = self.background_id
        if self.timed_out_after_ms is not None:
            head = (
                f"Command exceeded its timeout of {_seconds(self.timed_out_after_ms)} and was moved to the "
                f"background with ID: {shell_id}. It is still running."
            )
        else:
            head = f"Command running in background with ID: {shell_id}."
        return "\n".join(
            [
                head,
                f'Read its output (new output since the last read) with BashOutput(bash_id="{shell_id}"); '
                f'stop it with KillShell(shell_id="{shell_id}").',
                f"Output is being written to: {self.output_path}",
                *self.notes,
            ]
        )


class BashTool(Tool[BashInput]):
    """Runs a shell command in the session's working directory (SPEC §8)."""

    name = "Bash"
    input_model = BashInput
    max_result_size_chars = BASH_MAX_RESULT_CHARS

    def prompt(self) -> str:
        return _PROMPT

    def structured_output(self, data: Any) -> Any:
        """The result without its output text (the tool_result holds it): exit code,
        sandbox, background id and the rest stay."""
        return data.model_copy(update={"output": ""}) if isinstance(data, BashResult) else data

    def unavailable_reason(self) -> str | None:
        return parser_unavailable_reason()  # every call is parsed before it runs

    def is_read_only(self, input: BashInput) -> bool:
        # Outside the sandbox nothing backs the classifier up: never auto-allowed.
        return not input.dangerouslyDisableSandbox and is_read_only_command(input.command)

    def is_concurrency_safe(self, input: BashInput) -> bool:
        return is_read_only_command(input.command)

    def auto_allow_reason(self, input: BashInput, ctx: ToolUseContext) -> str | None:
        return sandbox_runtime(ctx).auto_allow_reason(input.command, disable_requested=input.dangerouslyDisableSandbox)

    def interrupt_behavior(self) -> InterruptBehavior:
        return "cancel"

    def permission_rule_content(self, input: BashInput) -> str | None:
        return input.command

    async def validate_input(self, input: BashInput, ctx: ToolUseContext) -> ValidationResult:
        if not input.command.strip():
            return ValidationResult.failed("The command is empty.")
        return ValidationResult.passed()

    def map_result_to_block(self, data: Any, tool_use_id: str) -> str | list[ContentBlock]:
        if isinstance(data, BashResult):
            return data.to_text()
        return super().map_result_to_block(data, tool_use_id)

    async def call(self, input: BashInput, ctx: ToolUseContext, on_progress: ProgressCallback) -> ToolResult:
        cwd, cwd_note = _usable_cwd(ctx.session)
        notes = (cwd_note,) if cwd_note else ()
        runtime = sandbox_runtime(ctx)
        decision = runtime.decide(
            input.command, classifier_allowed=self.is_read_only(input), disable_requested=input.dangerouslyDisableSandbox
        )
        running = start_command(
            input.command, cwd=cwd, output_dir=bash_output_dir(ctx.session), wrapper=_wrapper(runtime, decision, ctx)
        )
        notices = _unavailable_notice(runtime, decision)
        if input.run_in_background:
            shell = BackgroundShells.for_session(ctx.session).adopt(running, description=input.description)
            result = BashResult(
                command=input.command,
                background_id=shell.id,
                output_path=running.output_path,
                sandboxed=running.sandboxed,
                notes=notes,
            )
            return ToolResult(data=result, new_messages=notices)

        timeout_ms = input.timeout or DEFAULT_TIMEOUT_MS
        outcome = await running.wait(timeout=timeout_ms / 1000, abort_signal=ctx.abort_signal, on_progress=on_progress)
        if outcome == "timed_out" and _timeout_action(ctx) == "background":
            shell = BackgroundShells.for_session(ctx.session).adopt(running, description=input.description)
            result = BashResult(
                command=input.command,
                background_id=shell.id,
                output_path=running.output_path,
                timed_out_after_ms=timeout_ms,
                sandboxed=running.sandboxed,
                notes=notes,
            )
            return ToolResult(data=result, new_messages=notices)
        if outcome != "exited":
            await running.terminate()
        else:
            new_cwd = running.final_cwd()
            if new_cwd is not None:
                ctx.session.cwd = new_cwd
        result = _finished_result(
            running,
            interrupted=outcome == "aborted",
            timed_out_after_ms=timeout_ms if outcome == "timed_out" else None,
            notes=notes,
        )
        if running.sandboxed and (hint := _sandbox_hint(result, runtime)):
            result = result.model_copy(update={"notes": (*result.notes, hint)})
        return ToolResult(data=result, is_error=result.is_error, new_messages=notices)


def sandbox_runtime(ctx: ToolUseContext) -> SandboxRuntime:
    """The session's sandbox (``create_engine`` configures it from the settings files); a
    default one, kept in the session, when the engine was built without it."""
    runtime = ctx.services.sandbox or ctx.session.resources.sandbox
    if runtime is None:
        runtime = ctx.session.resources.sandbox = SandboxRuntime(project_dir=ctx.session.cwd)
    return runtime


def _wrapper(runtime: SandboxRuntime, decision: SandboxDecision, ctx: ToolUseContext):
    if not decision.sandboxed:
        return None
    return command_wrapper(runtime, additional_directories=ctx.session.additional_directories)


def _unavailable_notice(runtime: SandboxRuntime, decision: SandboxDecision) -> list[Any]:
    """Shown to the user once per session, never to the model (a replayed run must not diverge)."""
    text = runtime.unavailable_notice() if decision.unavailable else None
    return [SystemMessage(level="warning", content=text, subtype="sandbox_unavailable")] if text else []


def _sandbox_hint(result: BashResult, runtime: SandboxRuntime) -> str | None:
    return sandbox_failure_hint(
        result.output,
        exit_code=result.exit_code if result.exit_meaning is None else 0,
        limits=runtime.limits_text(),
        unsandboxed_allowed=runtime.settings.allow_unsandboxed_commands,
    )


def bash_output_dir(session: ToolSession) -> Path:
    """Where a session's Bash output files go: ``<session_dir>/bash`` or a temp dir."""
    if session.session_dir is not None:
        return session.session_dir / "bash"
    return default_output_dir()


def _finished_result(
    running: RunningCommand, *, interrupted: bool, timed_out_after_ms: int | None, notes: tuple[str, ...]
) -> BashResult:
    """Read back a command that has stopped; drop its files unless the output was cut."""
    running.discard_cwd_file()
    output_cap.enforce_cap(running, output_cap.MAX_OUTPUT_FILE_BYTES)  # the last writes before exit
    if running.output_capped:
        notes = (*notes, output_cap.capped_notice(output_cap.MAX_OUTPUT_FILE_BYTES))
    budget = BASH_MAX_RESULT_CHARS - _NOTES_RESERVE_CHARS - len(str(running.output_path))
    chunk = read_output_slice(running.output_path, max_chars=budget)
    if not chunk.truncated:
        running.output_path.unlink(missing_ok=True)
    exit_code = running.poll()
    # Exit code 1 of some commands is an answer, not a failure (Claude Code's command
    # semantics): `grep` finding nothing must not abort the Bash calls running beside it.
    last = _last_command_name(running.command) if exit_code == 1 else None
    meaning = program_spec(last).benign_exit_1 if last else None
    return BashResult(
        command=running.command,
        output=chunk.render(),
        exit_code=exit_code,
        exit_meaning=meaning,
        output_path=running.output_path if chunk.truncated else None,
        total_bytes=chunk.total_bytes,
        truncated=chunk.truncated,
        interrupted=interrupted,
        timed_out_after_ms=timed_out_after_ms,
        sandboxed=running.sandboxed,
        notes=(*notes, *running.exit_notes),
    )


def _usable_cwd(session: ToolSession) -> tuple[Path, str | None]:
    """The session cwd, or its nearest existing parent if it was deleted (with a note)."""
    cwd = session.cwd
    if cwd.is_dir():
        return cwd, None
    fallback = next((parent for parent in cwd.parents if parent.is_dir()), Path.home())
    session.cwd = fallback
    return fallback, f"Shell cwd was reset to {fallback} ({cwd} no longer exists)"


def _timeout_action(ctx: ToolUseContext) -> TimeoutAction:
    return ctx.services.bash_timeout_action


def _last_command_name(command: str) -> str | None:
    """Heuristic: the program name of the last simple command (it sets the exit code)."""
    lexer = shlex.shlex(command.replace("\n", ";"), posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        tokens = list(lexer)
    except ValueError:
        return None
    segment: list[str] = []
    for token in tokens:
        if token == ")":
            continue
        if set(token) <= set("|&;("):  # a control operator starts a new command
            segment = []
        else:
            segment.append(token)
    words = [word for word in segment if not _is_assignment(word)]
    return Path(words[0]).name if words else None


def _is_assignment(word: str) -> bool:
    name, sep, _ = word.partition("=")
    return bool(sep) and name.isidentifier()


def _seconds(ms: int) -> str:
    return f"{ms / 1000:g}s"


_PROMPT = f"""\
Executes a bash command and returns its output (stdout and stderr merged, in order).

The working directory persists between commands (a `cd` carries over); other shell state \
(variables, functions, aliases) does not. Commands run with stdin closed: never run \
interactive commands (editors, `git rebase -i`, prompts waiting for input).

Before running a command:
- If it creates directories or files, first check that the parent directory exists and is \
the right place.
- Always quote file paths that contain spaces with double quotes, e.g. \
cd "/Users/name/My Documents" (not cd /Users/name/My Documents).

Usage notes:
- The command argument is required.
- Optional timeout in milliseconds, up to {MAX_TIMEOUT_MS} ms ({MAX_TIMEOUT_MS // 60_000} minutes); \
default {DEFAULT_TIMEOUT_MS} ms ({DEFAULT_TIMEOUT_MS // 60_000} minutes). A command still running at \
its timeout is moved to the background: you get a shell ID and can read its output later with \
BashOutput or stop it with KillShell.
- Set run_in_background to true for commands that run long or never end (servers, watchers); \
you get a shell ID at once. Do not append `&` yourself, and do not poll with `sleep`: check \
BashOutput when you need the result.
- Write a clear, concise description of what the command does in 5-10 words.
- If the output exceeds {BASH_MAX_RESULT_CHARS} characters, its middle is cut \
("[N lines truncated]") and the full output is saved to a file whose path is given.
- A non-zero exit code is reported as an error, with the output.
- Avoid `find`, `grep`, `cat`, `head`, `tail`, `sed`, `awk` and `echo` for reading, searching \
or editing files: use the dedicated tools instead (Glob to find files, Grep to search \
contents, Read to read files, Edit/Write to change them). If you must search from the \
shell, prefer `rg` to `grep`.
- To run several commands, join them with `&&` when each depends on the one before, or `;` \
when it does not; make independent calls in parallel in one message. Do not separate \
commands with newlines (newlines inside quoted strings are fine).
- Keep the working directory stable: prefer absolute paths to `cd`, e.g. \
`pytest /foo/bar/tests` rather than `cd /foo/bar && pytest tests`.
- Never use git commands with -i (interactive), and do not push, force-push, rewrite \
history or change git config unless the user asked for it.

Sandbox: commands may run in an operating-system sandbox that allows writes only in the \
working directories and /tmp, no network, and hides secrets (~/.ssh, ~/.aws, …) and \
credential environment variables. When a command fails because of the sandbox (the result \
says so), do not work around it: tell the user what was blocked and why the command needs \
it, and if they agree run it again with dangerouslyDisableSandbox: true (that run needs \
their approval).
"""
