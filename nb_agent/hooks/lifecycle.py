"""The session's own hook events: SessionStart, UserPromptSubmit, PreCompact, SessionEnd,
and the Notification that a long run has ended.

``QueryEngine`` owns one :class:`SessionHooks`. SessionStart runs before the first
submission (source ``startup``, or ``resume`` for a resumed session), right away on a new
conversation (``clear``) and after every compaction (``compact``); its context joins the
conversation. SessionEnd runs once per started session. UserPromptSubmit may add context
to the prompt or refuse it (nothing sent, nothing recorded).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from nb_agent.context.compact import CompactionError
from nb_agent.errors import AbortError
from nb_agent.hooks.effects import context_messages, hook_notices
from nb_agent.hooks.types import HookEvent, HookInput, SessionStartSource
from nb_agent.messages import AttachmentMessage, SystemMessage

if TYPE_CHECKING:
    from nb_agent.context.compaction import CompactionResult
    from nb_agent.engine import QueryEngine

@dataclass(kw_only=True)
class PromptGate:
    """What the UserPromptSubmit hooks decided about one prompt."""

    events: list[Any] = field(default_factory=list)
    """Notices for the user."""
    context: list[AttachmentMessage] = field(default_factory=list)
    """Context to add after the prompt."""
    refused: str | None = None
    """Set when the prompt must not be sent: the reason, for the user."""


class SessionHooks:
    """SessionStart / SessionEnd / UserPromptSubmit / PreCompact for one engine."""

    def __init__(self, engine: QueryEngine) -> None:
        self._engine = engine
        self.pending_start: SessionStartSource | None = "startup"
        """SessionStart still owed before the next submission (None: it ran)."""
        self.started = False
        """A SessionStart ran and no SessionEnd since."""

    def _abort_signal(self) -> Any:
        controller = self._engine.abort_controller
        return controller.signal if controller is not None else None

    def _input(self, event: HookEvent, **fields: Any) -> HookInput:
        engine = self._engine
        return HookInput(
            hook_event_name=event,
            session_id=engine.session_id,
            transcript_path=str(engine.transcript_path),
            cwd=str(engine.tool_session.cwd),
            permission_mode=engine.config.permission_mode,
            **fields,
        )

    # --- SessionStart ------------------------------------------------------------------------
    async def _session_start(self, source: SessionStartSource) -> tuple[list[Any], list[AttachmentMessage]]:
        hooks = self._engine.hooks
        if not hooks.has("SessionStart"):
            return [], []
        try:
            result = await hooks.run(
                "SessionStart", self._input("SessionStart", source=source, model=self._engine.config.model), abort_signal=self._abort_signal()
            )
        except AbortError:  # Stop while it ran: the hook was killed; the prompt is refused next
            return [], []
        added = context_messages(result, "SessionStart", session_dir=self._engine.session_dir)
        notices = [*hook_notices(result, "SessionStart"), *(m for m in added if isinstance(m, SystemMessage))]
        return notices, [m for m in added if isinstance(m, AttachmentMessage)]

    async def start_if_pending(self) -> list[Any]:
        """Run the SessionStart owed (if any); its context joins the conversation. Returns
        the events to show."""
        source = self.pending_start
        if source is None:
            return []
        self.pending_start = None
        self.started = True
        notices, context = await self._session_start(source)
        for message in context:
            self._engine._append(message)
        return [*notices, *context]

    # --- UserPromptSubmit ---------------------------------------------------------------------
    async def user_prompt_submit(self, prompt: str) -> PromptGate:
        hooks = self._engine.hooks
        if not hooks.has("UserPromptSubmit") or self._engine.config.subagent is not None:
            return PromptGate()  # a subagent's prompt comes from the agent, not the user
        try:
            result = await hooks.run("UserPromptSubmit", self._input("UserPromptSubmit", prompt=prompt), abort_signal=self._abort_signal())
        except AbortError as exc:
            text = f"Stopped while a UserPromptSubmit hook ran ({exc.reason}); nothing was sent to the model."
            return PromptGate(events=[SystemMessage(level="warning", subtype="prompt_blocked", content=text)], refused=exc.reason)
        events: list[Any] = list(hook_notices(result, "UserPromptSubmit"))
        if result.blocking_errors or result.prevent_continuation:
            reason = "\n".join(result.blocking_errors) or result.stop_reason or "no reason given"
            text = f"A UserPromptSubmit hook refused this prompt; nothing was sent to the model.\n{reason}"
            events.append(SystemMessage(level="warning", subtype="prompt_blocked", content=text))
            return PromptGate(events=events, refused=reason)
        added = context_messages(result, "UserPromptSubmit", session_dir=self._engine.session_dir)
        events += [m for m in added if isinstance(m, SystemMessage)]
        return PromptGate(events=events, context=[m for m in added if isinstance(m, AttachmentMessage)])

    # --- compaction ---------------------------------------------------------------------------
    async def before_compact(self, trigger: str, instructions: str | None) -> tuple[str | None, list[Any]]:
        """PreCompact: returns the summary instructions (the user's plus the hooks') and
        notices; raises ``CompactionError`` when a hook stops the compaction."""
        hooks = self._engine.hooks
        if not hooks.has("PreCompact"):
            return instructions, []
        hook_trigger = "manual" if trigger == "manual" else "auto"
        result = await hooks.run("PreCompact", self._input("PreCompact", trigger=hook_trigger, custom_instructions=instructions or ""))
        notices: list[Any] = list(hook_notices(result, "PreCompact"))
        if result.prevent_continuation:
            raise CompactionError(f"a PreCompact hook stopped the compaction: {result.stop_reason or 'no reason given'}")
        merged = "\n\n".join(part for part in (instructions, *result.additional_contexts) if part)
        return merged or None, notices

    async def after_compact(self, result: CompactionResult, notices: list[Any]) -> CompactionResult:
        """SessionStart (source ``compact``): its context follows the summary."""
        self.pending_start = None
        self.started = True
        start_notices, context = await self._session_start("compact")
        return replace(
            result,
            messages=[*result.messages, *context],
            extra_messages=[*result.extra_messages, *notices, *start_notices, *context],
        )

    # --- the end ----------------------------------------------------------------------------
    async def end(self, reason: str, *, timeout_cap: float | None = None) -> list[Any]:
        """SessionEnd, once per started session. Returns notices."""
        if not self.started:
            return []
        self.started = False
        hooks = self._engine.hooks
        if not hooks.has("SessionEnd"):
            return []
        result = await hooks.run("SessionEnd", self._input("SessionEnd", reason=reason), timeout_cap=timeout_cap)
        return list(hook_notices(result, "SessionEnd"))

    def run_ended(self, duration_s: float, subtype: str) -> None:
        """A long run ended (not by the user's Stop): Notification ``idle_prompt``."""
        engine = self._engine
        after = engine.config.options.notify_after_s
        if subtype in ("interrupted", "prompt_blocked") or duration_s < after:
            return
        engine.background_hooks.fire(
            "Notification",
            self._input(
                "Notification",
                message=f"The agent finished after {duration_s:.0f}s and is waiting for your input",
                notification_type="idle_prompt",
                title="Agent finished",
            ),
        )
