"""Shell-command hooks in Claude Code's settings format.

The hook gets the event as JSON on stdin. Exit 0: stdout may be a JSON object with
``continue``, ``stopReason``, ``systemMessage``, ``decision``/``reason`` and
``hookSpecificOutput``; exit 2: block, with stderr fed back to the model; any other exit:
a non-blocking error shown to the user. A hook that hangs is killed at its timeout.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
from typing import Any

from nb_agent.hooks.types import HookCallback, HookInput, HookOutput

BLOCKING_EXIT_CODE = 2


class CommandHookWarning(Exception):
    """A command hook failed without blocking (raised to the registry, turned into a warning)."""


def _parse_stdout(stdout: str, event: str) -> HookOutput | None:
    text = stdout.strip()
    if not text.startswith("{"):
        return None  # plain text output is informational only
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CommandHookWarning(f"hook printed invalid JSON ({exc.msg}); output ignored") from None
    if not isinstance(data, dict):
        raise CommandHookWarning("hook printed JSON that is not an object; output ignored")
    return hook_output_from_json(data, event)


def hook_output_from_json(data: dict[str, Any], event: str) -> HookOutput:
    """Map Claude Code's hook JSON output onto :class:`HookOutput`."""
    specific = data.get("hookSpecificOutput") or {}
    decision = data.get("decision")
    reason = data.get("reason")
    permission = specific.get("permissionDecision")
    if decision == "approve" and permission is None:
        permission = "allow"
    blocking = None
    if decision == "block":
        blocking = reason or "Blocked by hook"
        if event == "PreToolUse" and permission is None:
            permission = "deny"
    if permission not in (None, "allow", "deny", "ask"):
        raise CommandHookWarning(f"unknown permissionDecision {permission!r}; ignored")
    return HookOutput(
        continue_=bool(data.get("continue", True)),
        stop_reason=data.get("stopReason"),
        system_message=data.get("systemMessage"),
        blocking_error=blocking,
        permission_decision=permission,
        permission_decision_reason=specific.get("permissionDecisionReason") or reason,
        updated_input=specific.get("updatedInput"),
        updated_output=specific.get("updatedMCPToolOutput"),
        additional_context=specific.get("additionalContext"),
    )


def _kill_group(process: asyncio.subprocess.Process) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def command_hook(command: str, *, timeout: float, cwd: str | None = None) -> HookCallback:
    """A hook callback that runs ``command`` through ``bash -c``."""

    async def run(hook_input: HookInput) -> HookOutput | None:
        env = dict(os.environ)
        env.setdefault("CLAUDE_PROJECT_DIR", cwd or hook_input.cwd or os.getcwd())
        process = await asyncio.create_subprocess_exec(
            "bash",
            "-c",
            command,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            cwd=cwd or hook_input.cwd or None,
            env=env,
            start_new_session=True,  # so a timeout kills the hook's children too
        )
        payload = json.dumps(hook_input.to_json_dict(), default=str).encode()
        try:
            stdout, stderr = await asyncio.wait_for(process.communicate(payload), timeout)
        except asyncio.TimeoutError:
            _kill_group(process)
            await process.wait()
            raise CommandHookWarning(f"hook timed out after {timeout:g}s and was killed: {command}") from None
        except BaseException:
            _kill_group(process)
            raise
        out = stdout.decode("utf-8", errors="replace")
        err = stderr.decode("utf-8", errors="replace").strip()
        if process.returncode == BLOCKING_EXIT_CODE:
            return HookOutput(blocking_error=err or f"Blocked by hook: {command}", permission_decision=None)
        if process.returncode != 0:
            raise CommandHookWarning(f"hook exited with {process.returncode}: {err or command}")
        return _parse_stdout(out, hook_input.hook_event_name)

    run.__qualname__ = f"command_hook({command!r})"
    return run
