"""What a hook result turns into in the conversation: notices for the user, context for the model.

Context a hook adds (UserPromptSubmit, SessionStart, PostToolUseFailure, ...) goes to
the model as an attachment (a ``<system-reminder>``); above
:data:`CONTEXT_PERSIST_THRESHOLD_CHARS` it is saved to a file under the session and
the model gets a preview with the file's path, as for a large tool result. The user
sees a one-line notice unless the hook asked ``suppressOutput``.
"""

from __future__ import annotations

import uuid
from pathlib import Path

from nb_agent.context.tool_result_storage import process_tool_result_size
from nb_agent.hooks.types import AggregatedHookResult, HookEvent
from nb_agent.messages import AttachmentMessage, SystemMessage

CONTEXT_PERSIST_THRESHOLD_CHARS = 10_000
"""Hook context above this size is persisted to a file, as Claude Code does."""
CONTEXT_KIND = "hook_additional_context"
_NOTICE_PREVIEW_CHARS = 160


def hook_notices(result: AggregatedHookResult, event: HookEvent) -> list[SystemMessage]:
    """The hook's warnings and ``systemMessage`` s, for the user."""
    notices = [SystemMessage(level="warning", subtype="hook", content=f"{event} {w}" if w.startswith("hook ") else w) for w in result.warnings]
    notices += [SystemMessage(level="info", subtype="hook", content=m) for m in result.system_messages]
    return notices


def _one_line(text: str, limit: int = _NOTICE_PREVIEW_CHARS) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def context_messages(result: AggregatedHookResult, event: HookEvent, *, session_dir: Path | None) -> list[AttachmentMessage | SystemMessage]:
    """The context the hooks added: one attachment for the model, notices for the user."""
    if not result.additional_contexts:
        return []
    text = "\n\n".join(result.additional_contexts)
    sized = process_tool_result_size(
        text,
        tool_use_id=f"hook-{event}-{uuid.uuid4().hex[:12]}",
        max_result_size_chars=CONTEXT_PERSIST_THRESHOLD_CHARS,
        session_dir=session_dir,
    )
    content = sized if isinstance(sized, str) else text
    messages: list[AttachmentMessage | SystemMessage] = [AttachmentMessage(kind=CONTEXT_KIND, content=f"{event} hook additional context:\n{content}")]
    for visible in result.visible_contexts:
        messages.append(SystemMessage(level="info", subtype="hook_context", content=f"{event} hook added context: {_one_line(visible)}"))
    return messages
