"""Shell-command hooks in Claude Code's settings format.

The hook gets the event as JSON on stdin, runs in the session's current directory with
``CLAUDE_PROJECT_DIR`` set to the project root. Exit 0: stdout may be a JSON object
(``continue``, ``stopReason``, ``suppressOutput``, ``systemMessage``, ``decision``/
``reason``, ``hookSpecificOutput``); plain stdout is context for the model for
UserPromptSubmit and SessionStart, summary instructions for PreCompact, and ignored
otherwise. Exit 2: block, with stderr as the reason (to the model, or to the user for
events that cannot block). Any other exit: a non-blocking error shown to the user. A
hook that hangs is killed (with its process group) at its timeout; output beyond
:data:`MAX_OUTPUT_BYTES` is dropped with a note.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import json
import os
import signal
from typing import Any

from nb_agent.hooks.types import CONTEXT_EVENTS, EXIT_2_TO_MODEL, HookCallback, HookInput, HookOutput

BLOCKING_EXIT_CODE = 2
MAX_OUTPUT_BYTES = 4 * 1024 * 1024
"""Per stream; a hook printing more is cut there (a runaway hook must not fill memory)."""
_CHUNK = 64 * 1024
_REAP_S = 2.0
"""How long a killed hook may take to exit (SIGKILL: normally a few milliseconds)."""


class CommandHookWarning(Exception):
    """A command hook failed without blocking (raised to the registry, turned into a warning)."""


def parse_hook_stdout(stdout: str, event: str) -> HookOutput | None:
    """A hook's output (a command's stdout, an HTTP hook's body): JSON object, or plain text."""
    text = stdout.strip()
    if not text:
        return None
    if not text.startswith("{"):
        if event in CONTEXT_EVENTS or event == "PreCompact":
            return HookOutput(additional_context=text)
        return None  # plain text output is informational only
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CommandHookWarning(f"{event} hook printed invalid JSON ({exc.msg} at line {exc.lineno}); output ignored") from None
    if not isinstance(data, dict):
        raise CommandHookWarning(f"{event} hook printed JSON that is not an object; output ignored")
    return hook_output_from_json(data, event)


def _text_field(data: dict[str, Any], key: str) -> str | None:
    value = data.get(key)
    if value is None:
        return None
    return value if isinstance(value, str) else json.dumps(value)


def _permission_request_decision(specific: dict[str, Any], event: str) -> dict[str, Any]:
    """PermissionRequest's ``hookSpecificOutput.decision``: ``behavior`` (allow / deny),
    ``updatedInput``, ``updatedPermissions``, ``message``, ``interrupt``."""
    decision = specific.get("decision")
    if decision is None:
        return {}
    if not isinstance(decision, dict) or decision.get("behavior") not in ("allow", "deny"):
        raise CommandHookWarning(f"{event} hook: decision must be an object with behavior 'allow' or 'deny'; output ignored")
    permissions = decision.get("updatedPermissions")
    if permissions is not None and not (isinstance(permissions, list) and all(isinstance(p, dict) for p in permissions)):
        raise CommandHookWarning(f"{event} hook: updatedPermissions must be a list of objects; output ignored")
    return {
        "permissionDecision": decision["behavior"],
        "permissionDecisionReason": decision.get("message"),
        "updatedInput": decision.get("updatedInput"),
        "updatedPermissions": permissions,
        "interrupt": decision.get("interrupt") is True,
    }


def hook_output_from_json(data: dict[str, Any], event: str) -> HookOutput:
    """Map Claude Code's hook JSON output onto :class:`HookOutput`."""
    specific = data.get("hookSpecificOutput") or {}
    if not isinstance(specific, dict):
        raise CommandHookWarning(f"{event} hook: hookSpecificOutput must be an object; output ignored")
    if event == "PermissionRequest":
        specific = {**specific, **_permission_request_decision(specific, event)}
    decision = data.get("decision")
    reason = _text_field(data, "reason")
    permission = specific.get("permissionDecision")
    if decision == "approve" and permission is None:  # PreToolUse's older spelling
        permission = "allow"
    blocking = None
    if decision == "block":
        blocking = reason or f"Blocked by {event} hook"
        if event in ("PreToolUse", "PermissionRequest") and permission is None:
            permission = "deny"
    elif decision not in (None, "approve", "undefined"):
        raise CommandHookWarning(f"{event} hook: unknown decision {decision!r}; output ignored")
    if permission not in (None, "allow", "deny", "ask"):
        raise CommandHookWarning(f"{event} hook: unknown permissionDecision {permission!r}; output ignored")
    updated_input = specific.get("updatedInput")
    if updated_input is not None and not isinstance(updated_input, dict):
        raise CommandHookWarning(f"{event} hook: updatedInput must be an object; output ignored")
    return HookOutput(
        continue_=data.get("continue", True) is not False,
        stop_reason=_text_field(data, "stopReason"),
        suppress_output=data.get("suppressOutput") is True,
        system_message=_text_field(data, "systemMessage"),
        blocking_error=blocking,
        permission_decision=permission,
        permission_decision_reason=_text_field(specific, "permissionDecisionReason") or reason,
        updated_input=updated_input,
        updated_output=specific.get("updatedMCPToolOutput"),
        additional_context=_text_field(specific, "additionalContext"),
        updated_permissions=specific.get("updatedPermissions"),
        interrupt=specific.get("interrupt") is True,
    )


def _exit_2_output(event: str, stderr: str, command: str) -> HookOutput:
    text = stderr or f"Blocked by hook: {command}"
    if event in EXIT_2_TO_MODEL or event == "UserPromptSubmit":
        return HookOutput(blocking_error=text)
    # SessionStart, SessionEnd, PreCompact, Notification cannot block: the user sees stderr.
    return HookOutput(system_message=f"{event} hook: {text}")


def kill_process_group(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


started_groups: contextvars.ContextVar[set[int] | None] = contextvars.ContextVar("nb_agent_hook_groups", default=None)
"""The process groups of the command hooks one ``Hooks.run`` started: Stop kills them all
even if a hook's task is torn down before its own cleanup runs."""


async def _read_capped(stream: asyncio.StreamReader | None) -> tuple[bytes, bool]:
    """All of ``stream`` up to MAX_OUTPUT_BYTES (the rest is read and dropped)."""
    if stream is None:
        return b"", False
    kept = bytearray()
    cut = False
    while chunk := await stream.read(_CHUNK):
        room = MAX_OUTPUT_BYTES - len(kept)
        if room > 0:
            kept += chunk[:room]
        if len(chunk) > room:
            cut = True
    return bytes(kept), cut


async def _feed(process: asyncio.subprocess.Process, payload: bytes) -> None:
    stdin = process.stdin
    if stdin is None:
        return
    # A hook that never reads stdin is fine: a broken pipe is not an error.
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        stdin.write(payload)
        await stdin.drain()
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        stdin.close()


async def _communicate(process: asyncio.subprocess.Process, payload: bytes) -> tuple[bytes, bool, bytes]:
    _, (out, cut), (err, _) = await asyncio.gather(_feed(process, payload), _read_capped(process.stdout), _read_capped(process.stderr))
    await process.wait()
    return out, cut, err


async def _spawn(command: str, *, cwd: str, env: dict[str, str]) -> asyncio.subprocess.Process:
    """Start ``bash -c command`` in a new process group, registered with ``started_groups``.

    Starting takes several turns of the event loop, and the hook may already be running
    (and starting children) when Stop cancels this task: the start is shielded, and a
    cancelled start kills the group it started before the cancellation goes on (otherwise
    the hook and its children would outlive Stop)."""
    starting = asyncio.ensure_future(
        asyncio.create_subprocess_exec(
            "bash",
            "-c",
            command,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            cwd=cwd,
            env=env,
            start_new_session=True,  # so a timeout or Stop kills the hook's children too
        )
    )
    try:
        process = await asyncio.shield(starting)
    except OSError as exc:
        raise CommandHookWarning(f"hook could not start ({exc}): {command}") from None
    except asyncio.CancelledError:
        with contextlib.suppress(BaseException):
            await _kill_and_reap(await starting)
        raise
    groups = started_groups.get()
    if groups is not None:
        groups.add(process.pid)
    return process


async def _kill_and_reap(process: asyncio.subprocess.Process) -> None:
    """Kill the hook's process group and wait (briefly) for the hook itself to exit.

    ``Process.wait()`` also waits for the pipes to close, which a grandchild that left the
    group (``setsid``) may hold open for ever: wait for the exit status instead, then
    close our ends of the pipes."""
    kill_process_group(process.pid)
    deadline = asyncio.get_running_loop().time() + _REAP_S
    while process.returncode is None and asyncio.get_running_loop().time() < deadline:
        await asyncio.sleep(0.01)
    transport = getattr(process, "_transport", None)  # asyncio has no public close for a Process
    if transport is not None:
        transport.close()


def hook_environment(project_dir: str) -> dict[str, str]:
    env = dict(os.environ)
    # Always the project of this session (a kernel started from Claude Code inherits another).
    env["CLAUDE_PROJECT_DIR"] = project_dir
    return env


def command_hook(command: str, *, timeout: float, project_dir: str | None = None) -> HookCallback:
    """A hook callback that runs ``command`` through ``bash -c``.

    It runs in the session's current directory (``HookInput.cwd``); ``project_dir`` (default:
    that directory) is ``$CLAUDE_PROJECT_DIR``.
    """

    async def run(hook_input: HookInput) -> HookOutput | None:
        cwd = hook_input.cwd or project_dir or os.getcwd()
        process = await _spawn(command, cwd=cwd, env=hook_environment(project_dir or cwd))
        payload = json.dumps(hook_input.to_json_dict(), default=str).encode()
        try:
            stdout, cut, stderr = await asyncio.wait_for(_communicate(process, payload), timeout)
        except asyncio.TimeoutError:
            await _kill_and_reap(process)
            raise CommandHookWarning(f"hook timed out after {timeout:g}s and was killed: {command}") from None
        except BaseException:  # cancelled (Stop, a capped SessionEnd): kill it and reap it
            await _kill_and_reap(process)
            raise
        event = hook_input.hook_event_name
        err = stderr.decode("utf-8", errors="replace").strip()
        if process.returncode == BLOCKING_EXIT_CODE:
            return _exit_2_output(event, err, command)
        if process.returncode != 0:
            raise CommandHookWarning(f"hook exited with {process.returncode}: {err or command}")
        out = stdout.decode("utf-8", errors="replace")
        if cut:
            if out.lstrip().startswith("{"):
                raise CommandHookWarning(f"{event} hook printed more than {MAX_OUTPUT_BYTES // (1024 * 1024)} MB; output ignored")
            out += f"\n[hook output cut at {MAX_OUTPUT_BYTES // (1024 * 1024)} MB]"
        return parse_hook_stdout(out, event)

    run.__qualname__ = f"command_hook({command!r})"
    return run
