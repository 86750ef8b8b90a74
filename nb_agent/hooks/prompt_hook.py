"""``"type": "prompt"`` hooks: a small model judges the event (Claude Code's format).

``{"type": "prompt", "prompt": "Did the agent run the tests? $ARGUMENTS", "model":
"haiku", "timeout": 30}``: ``$ARGUMENTS`` is replaced by the event's input as JSON (or the
input follows the prompt). The model answers ``{"ok": true}`` or ``{"ok": false,
"reason": "..."}``; ``ok: false`` blocks as exit code 2 does (a tool call is denied, a Stop
sends the agent back to work with the reason, a prompt is refused); ``ok: true`` lets the
event go on and, for PermissionRequest, allows (within what a hook may allow). The call
goes through the session's model client (``hook_prompt``: retried, counted in the cost).
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable
from typing import Any

from nb_agent.hooks.command import CommandHookWarning
from nb_agent.hooks.types import HookCallback, HookInput, HookOutput

__all__ = ["DEFAULT_PROMPT_HOOK_TIMEOUT_S", "PROMPT_HOOK_QUERY_SOURCE", "ModelQuery", "prompt_hook"]

DEFAULT_PROMPT_HOOK_TIMEOUT_S = 30.0
PROMPT_HOOK_QUERY_SOURCE = "hook_prompt"
ModelQuery = Callable[[dict[str, Any]], Awaitable[str]]
"""``async (request) -> text``: one non-streaming model call made for a hook."""

_SYSTEM = """\
You evaluate one event of an AI coding agent's run for a hook the user configured. \
The user's instructions and the event (as JSON) follow. Answer with one JSON object \
and nothing else: {"ok": true} when the instructions are satisfied and the event may \
proceed, or {"ok": false, "reason": "..."} with a short reason the agent will read."""
_OBJECT = re.compile(r"\{.*\}", re.DOTALL)


def _text(prompt: str, hook_input: HookInput) -> str:
    event = json.dumps(hook_input.to_json_dict(), default=str)
    return prompt.replace("$ARGUMENTS", event) if "$ARGUMENTS" in prompt else f"{prompt}\n\n{event}"


def _verdict(answer: str, event: str) -> HookOutput | None:
    found = _OBJECT.search(answer)
    try:
        data = json.loads(found.group(0)) if found else None
    except json.JSONDecodeError:
        data = None
    if not isinstance(data, dict) or not isinstance(data.get("ok"), bool):
        raise CommandHookWarning(f"{event} prompt hook: the model did not answer {{\"ok\": ...}}; ignored")
    if not data["ok"]:
        reason = str(data.get("reason") or f"Blocked by a {event} prompt hook")
        return HookOutput(blocking_error=reason, permission_decision_reason=reason)
    if event == "PermissionRequest":
        return HookOutput(permission_decision="allow", permission_decision_reason=str(data.get("reason") or "") or None)
    return None


def prompt_hook(prompt: str, *, model: str | None, ask: Callable[[], ModelQuery | None]) -> HookCallback:
    """A hook callback asking a model about the event. ``ask()`` gives the session's model
    call at run time (None: no session to ask through, a warning)."""

    async def run(hook_input: HookInput) -> HookOutput | None:
        query = ask()
        event = hook_input.hook_event_name
        if query is None:
            raise CommandHookWarning(f"{event} prompt hook: no model is connected to ask; ignored")
        request: dict[str, Any] = {
            "max_tokens": 1024,
            "system": _SYSTEM,
            "messages": [{"role": "user", "content": _text(prompt, hook_input)}],
            **({"model": model} if model else {}),
        }
        return _verdict(await query(request), event)

    run.__qualname__ = f"prompt_hook({prompt[:40]!r})"
    return run
