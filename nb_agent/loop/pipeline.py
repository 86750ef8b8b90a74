"""The per-call pipeline (SPEC §3): one tool_use in, progress and exactly one tool_result out.

lookup/aliases → schema validation → deny rules → ``validate_input`` → PreToolUse hooks → permission
decision (rules; a hook may deny, ask, or allow what would only ask; then interactive; a
Notification hook fires when the user is asked) → call with progress → PostToolUse hooks
(PostToolUseFailure when the call failed) → result
mapping and size processing.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field, replace
from typing import Any

import pydantic

from nb_agent.context.tool_result_storage import process_tool_result_size
from nb_agent.errors import AbortError, InputValidationError, NbAgentError, ToolError
from nb_agent.hooks.background import BackgroundHooks
from nb_agent.hooks.effects import context_messages, hook_notices
from nb_agent.hooks.permission_request import hook_answer, permission_suggestions, session_rules
from nb_agent.hooks.registry import Hooks
from nb_agent.hooks.types import HookEvent, HookInput
from nb_agent.messages import (
    INTERRUPT_MESSAGE,
    AttachmentMessage,
    ContentBlock,
    ProgressMessage,
    SystemMessage,
    UserMessage,
    error_tool_result,
    tool_result_message,
)
from nb_agent.model.client import MALFORMED_INPUT_KEY
from nb_agent.permissions.restriction import restriction_ask
from nb_agent.permissions.types import (
    CanUseTool,
    PermissionAllow,
    PermissionAsk,
    PermissionDecision,
    PermissionDenialRecord,
    PermissionDeny,
    PermissionPolicy,
    PermissionRequest,
)
from nb_agent.tools.base import ContextModifier, Tool, ToolResult, ToolSession, ToolUseContext, find_tool

log = logging.getLogger(__name__)

HOOK_SUMMARY_THRESHOLD_S = 0.5
HOOK_DEBUG_THRESHOLD_S = 2.0


@dataclass(kw_only=True)
class ToolRunDeps:
    """What the pipeline needs from the session, beyond the tool context."""

    hooks: Hooks = field(default_factory=Hooks)
    permission_policy: PermissionPolicy = field(default_factory=PermissionPolicy)
    can_use_tool: CanUseTool | None = None
    on_denial: Callable[[PermissionDenialRecord], None] = lambda record: None
    on_decision: Callable[[str, str, str], None] = lambda tool_use_id, decision, detail: None
    """Called as ``(tool_use_id, "allow"|"deny"|"always_allow", detail)`` for the transcript."""
    background_hooks: BackgroundHooks | None = None
    """Runs Notification hooks when the user is asked for permission (without waiting for them)."""


@dataclass(frozen=True, kw_only=True)
class ToolUpdate:
    """One item a tool call produces: a message, and maybe a context modifier."""

    message: UserMessage | ProgressMessage | SystemMessage | AttachmentMessage
    context_modifier: ContextModifier | None = None
    prevent_continuation: bool = False
    is_error: bool = False


def no_such_tool_message(name: str) -> str:
    return f"Error: No such tool available: {name}"


def format_validation_error(tool_name: str, exc: pydantic.ValidationError) -> str:
    issues = []
    for err in exc.errors():
        loc = ".".join(str(p) for p in err["loc"]) or "(input)"
        issues.append(f"  - {loc}: {err['msg']}")
    return f"InputValidationError: {tool_name} failed due to the following issues:\n" + "\n".join(issues)


class _Refused(Exception):
    """Internal: the call ends early with an error result (validation, denial)."""

    def __init__(self, text: str, *, prevent_continuation: bool = False) -> None:
        super().__init__(text)
        self.text = text
        self.prevent_continuation = prevent_continuation


async def run_tool_use(
    block: ContentBlock,
    ctx: ToolUseContext,
    deps: ToolRunDeps,
) -> AsyncIterator[ToolUpdate]:
    """Run one tool_use block; always ends with exactly one tool_result update."""
    tool_use_id: str = block["id"]
    tool = find_tool(ctx.tools, block["name"])
    if tool is None:
        yield ToolUpdate(message=error_tool_result(tool_use_id, no_such_tool_message(block["name"])), is_error=True)
        return
    if ctx.abort_signal.aborted:
        yield ToolUpdate(message=_interrupted(tool_use_id, ctx.abort_signal.reason), is_error=True)
        return
    call = _ToolCall(tool=tool, block=block, ctx=ctx, deps=deps)
    try:
        async for update in call.run():
            yield update
    except AbortError as exc:
        yield ToolUpdate(message=_interrupted(tool_use_id, exc.reason), is_error=True)
    except _Refused as refused:
        yield ToolUpdate(
            message=error_tool_result(tool_use_id, refused.text),
            prevent_continuation=refused.prevent_continuation or call.prevent_continuation,
            is_error=True,
        )
        for update in call._drain_extra():  # notices of hooks that ran before the refusal
            yield update


def _interrupted(tool_use_id: str, reason: str | None = None) -> UserMessage:
    return error_tool_result(tool_use_id, reason or INTERRUPT_MESSAGE)


@dataclass(kw_only=True)
class _ToolCall:
    tool: Tool[Any]
    block: ContentBlock
    ctx: ToolUseContext
    deps: ToolRunDeps
    prevent_continuation: bool = False
    extra: list[ToolUpdate] = field(default_factory=list)

    @property
    def tool_use_id(self) -> str:
        return self.block["id"]

    def _hook_input(self, event: str, raw_input: dict[str, Any], **kw: Any) -> HookInput:
        return HookInput(
            hook_event_name=event,  # type: ignore[arg-type]
            session_id=self.ctx.session_id,
            cwd=str(self.ctx.cwd),
            tool_name=self.tool.name,
            tool_input=raw_input,
            tool_use_id=self.tool_use_id,
            transcript_path=self.ctx.services.transcript_path,
            permission_mode=self.ctx.permission_mode,
            **kw,
        )

    def _parse(self, raw: Any) -> tuple[dict[str, Any], Any]:
        """The call's input and the tool's model of it; refused when it is not a valid object."""
        if not isinstance(raw, dict):
            raise _Refused(f"InputValidationError: {self.tool.name} expects a JSON object as input, got {type(raw).__name__}")
        if MALFORMED_INPUT_KEY in raw:  # the streamed JSON did not parse; never run on a guess
            raise _Refused(f"InputValidationError: {self.tool.name} input is not valid JSON: {raw[MALFORMED_INPUT_KEY]}")
        try:
            return raw, self.tool.parse_input(raw)
        except pydantic.ValidationError as exc:
            raise _Refused(format_validation_error(self.tool.name, exc)) from None
        except InputValidationError as exc:
            raise _Refused(f"InputValidationError: {exc}") from None

    async def _validate(self, parsed: Any) -> None:
        result = await self.tool.validate_input(parsed, self.ctx)
        if not result.ok:
            raise _Refused(result.message)

    def _hook_notices(self, hook_result: Any, event: HookEvent) -> None:
        for notice in hook_notices(hook_result, event):
            self.extra.append(ToolUpdate(message=notice))
        for message in context_messages(hook_result, event, session_dir=self.ctx.session.session_dir):
            self.extra.append(ToolUpdate(message=message))
        if hook_result.elapsed_s > HOOK_SUMMARY_THRESHOLD_S:
            self.extra.append(
                ToolUpdate(
                    message=SystemMessage(
                        level="info",
                        content=f"{event} hooks for {self.tool.name} took {hook_result.elapsed_s:.1f}s",
                        subtype="hook_timing",
                    )
                )
            )
        if hook_result.elapsed_s > HOOK_DEBUG_THRESHOLD_S:
            log.debug("%s hooks for %s took %.1fs", event, self.tool.name, hook_result.elapsed_s)

    async def _pre_tool_hooks(self, raw: dict[str, Any], parsed: Any) -> tuple[dict[str, Any], Any, PermissionDecision | None]:
        if not self.deps.hooks.has("PreToolUse"):
            return raw, parsed, None
        result = await self.deps.hooks.run(
            "PreToolUse", self._hook_input("PreToolUse", raw), abort_signal=self.ctx.abort_signal
        )
        self._hook_notices(result, "PreToolUse")
        if result.prevent_continuation:
            self.prevent_continuation = True
        if result.updated_input is not None:
            # A hook's input is the model's input as far as safety goes: the schema, the
            # tool's own checks (which resolve ``~user`` paths) and every rule see it.
            raw, parsed = await self._revalidated(result.updated_input, "a PreToolUse hook")
        decision: PermissionDecision | None = None
        reason = result.permission_decision_reason or "; ".join(result.blocking_errors)
        if result.permission_decision == "deny":
            decision = PermissionDeny(message=f"PreToolUse hook blocked this call: {reason or 'no reason given'}")
        elif result.permission_decision == "ask":
            decision = PermissionAsk(message=reason or "A hook asked for confirmation")
        elif result.permission_decision == "allow":
            decision = PermissionAllow(reason=reason or None)
        if self.prevent_continuation and decision is None:
            decision = PermissionDeny(message=f"Execution stopped by PreToolUse hook: {result.stop_reason or ''}".strip())
        return raw, parsed, decision

    async def _revalidated(self, updated: Any, source: str) -> tuple[dict[str, Any], Any]:
        try:
            raw, parsed = self._parse(updated)
            await self._validate(parsed)
        except _Refused as refused:
            raise _Refused(f"The input {source} supplied was rejected: {refused.text}") from None
        return raw, parsed

    async def _decide(self, parsed: Any, hook_decision: PermissionDecision | None) -> PermissionDecision:
        """The rules' decision, then the hook's: a hook may deny or ask, and its *allow*
        answers only an ordinary ask; deny rules and the safety asks (protected files,
        writes outside the working directories, ask rules) stand."""
        decision = await self.deps.permission_policy.decide(self.tool, parsed, self.ctx)
        if isinstance(decision, PermissionAllow) and (narrowed := restriction_ask(self.tool, parsed, self.ctx)):
            decision = narrowed  # a running skill's allowed-tools only add asks
        if isinstance(decision, PermissionDeny) or hook_decision is None:
            return decision
        if isinstance(hook_decision, PermissionAllow):
            if isinstance(decision, PermissionAsk) and not decision.hook_may_allow:
                return decision
            return hook_decision
        return hook_decision

    async def _permission(self, raw: dict[str, Any], parsed: Any, hook_decision: PermissionDecision | None) -> tuple[dict[str, Any], Any]:
        decision = await self._decide(parsed, hook_decision)
        if isinstance(decision, PermissionAsk):
            decision = await self._ask(raw, parsed, decision)
        if isinstance(decision, PermissionDeny):
            self._record_denial(raw, decision)
            if decision.interrupt:
                self.ctx.abort_controller.abort("Interrupted by user")
            raise _Refused(decision.message)
        if isinstance(decision, PermissionAllow) and decision.updated_input is not None and decision.updated_input != raw:
            raw, parsed = await self._revalidated(decision.updated_input, "the permission answer")
        return raw, parsed

    async def _ask(self, raw: dict[str, Any], parsed: Any, ask: PermissionAsk) -> PermissionDecision:
        hooked = await self._permission_request_hooks(raw, ask)
        if hooked is not None:
            return hooked
        return await self._ask_user(raw, parsed, ask)

    async def _permission_request_hooks(self, raw: dict[str, Any], ask: PermissionAsk) -> PermissionDecision | None:
        """PermissionRequest hooks answer for the user where they may
        (:mod:`nb_agent.hooks.permission_request`); None: the user is asked."""
        if not self.deps.hooks.has("PermissionRequest"):
            return None
        hook_input = self._hook_input("PermissionRequest", raw, permission_suggestions=permission_suggestions(ask))
        result = await self.deps.hooks.run("PermissionRequest", hook_input, abort_signal=self.ctx.abort_signal)
        self._hook_notices(result, "PermissionRequest")
        answer = hook_answer(result, ask, tool_name=self.tool.name)
        rules, warnings = session_rules(result.updated_permissions) if isinstance(answer.decision, PermissionAllow) else ([], [])
        for note in [*answer.notes, *warnings]:
            self.extra.append(ToolUpdate(message=SystemMessage(level="warning", subtype="hook", content=note)))
        if answer.decision is None:
            return None
        for behavior, rule in rules:
            self._add_session_rule(behavior, rule)
        if answer.updated_input is not None and answer.updated_input != raw:
            return await self._decide_again(answer.updated_input)
        self.deps.on_decision(self.tool_use_id, answer.decision.behavior, "PermissionRequest hook")
        return answer.decision

    async def _decide_again(self, updated: dict[str, Any]) -> PermissionDecision:
        """A hook's rewritten input goes through the whole chain again: a deny rule denies
        it, an ask only the user may answer is put to the user; else the hook's allow holds."""
        raw, parsed = await self._revalidated(updated, "a PermissionRequest hook")
        decision = await self.deps.permission_policy.decide(self.tool, parsed, self.ctx)
        if isinstance(decision, PermissionAsk) and not decision.hook_may_allow:
            answer = await self._ask_user(raw, parsed, decision)
            return replace(answer, updated_input=answer.updated_input or raw) if isinstance(answer, PermissionAllow) else answer
        if isinstance(decision, PermissionDeny):
            return decision
        self.deps.on_decision(self.tool_use_id, "allow", "PermissionRequest hook")
        return PermissionAllow(updated_input=raw, reason="PermissionRequest hook")

    def _add_session_rule(self, behavior: str, rule: str) -> None:
        try:
            self.deps.permission_policy.add_session_rule(behavior, rule)  # type: ignore[arg-type]
        except (NotImplementedError, NbAgentError) as exc:
            self.extra.append(ToolUpdate(message=SystemMessage(level="warning", subtype="hook", content=f"PermissionRequest hook: rule {rule} not added ({exc})")))

    async def _change_preview(self, parsed: Any) -> Any:
        """What the call would change, for the approval card; a preview that fails (the file
        went away, the cell is gone) shows nothing and never stops the ask."""
        try:
            return await self.tool.change_preview(parsed, self.ctx)
        except (ToolError, OSError, ValueError) as exc:
            log.debug("no change preview for %s: %s", self.tool.name, exc)
            return None

    async def _ask_user(self, raw: dict[str, Any], parsed: Any, ask: PermissionAsk) -> PermissionDecision:
        if self.deps.can_use_tool is None:
            return PermissionDeny(message=f"Permission to use {self.tool.name} was not granted: {ask.message} (no approver is connected)")
        if self.deps.background_hooks is not None:
            self.deps.background_hooks.fire("Notification", self._notification_input())
        request = PermissionRequest(
            tool_use_id=self.tool_use_id,
            tool_name=self.tool.name,
            input=raw,
            message=ask.message,
            suggested_rule=ask.suggested_rule,
            change=await self._change_preview(parsed),
        )
        answer = await _race_abort(self.deps.can_use_tool(self.tool, request, self.ctx), self.ctx)
        if isinstance(answer, PermissionAllow) and answer.rule_to_add:
            try:
                self.deps.permission_policy.add_session_rule("allow", answer.rule_to_add)
            except NotImplementedError:
                pass
            self.deps.on_decision(self.tool_use_id, "always_allow", answer.rule_to_add)
        elif isinstance(answer, PermissionAllow):
            self.deps.on_decision(self.tool_use_id, "allow", "")
        else:
            self.deps.on_decision(self.tool_use_id, "deny", answer.message)
        return answer

    def _notification_input(self) -> HookInput:
        return HookInput(
            hook_event_name="Notification",
            session_id=self.ctx.session_id,
            cwd=str(self.ctx.cwd),
            transcript_path=self.ctx.services.transcript_path,
            permission_mode=self.ctx.permission_mode,
            message=f"Claude needs your permission to use {self.tool.name}",
            notification_type="permission_prompt",
            title="Permission needed",
        )

    async def _call(self, parsed: Any) -> AsyncIterator[ToolUpdate | ToolResult]:
        # Progress, completion and the run's abort all set one event: no helper task (and
        # no asyncio.wait) per wait, which used to be most of the pipeline's own cost.
        progress: list[dict[str, Any]] = []
        changed = asyncio.Event()

        def on_progress(data: dict[str, Any]) -> None:
            progress.append(data)
            changed.set()

        loop = asyncio.get_running_loop()
        task = asyncio.ensure_future(self._call_holding_resource(parsed, on_progress))
        task.add_done_callback(_consume_exception)  # a failure after an abort is not news
        task.add_done_callback(lambda _: changed.set())
        remove_abort = self.ctx.abort_signal.add_callback(lambda _reason: loop.call_soon_threadsafe(changed.set))
        try:
            while True:
                await changed.wait()
                changed.clear()
                while progress:
                    yield ToolUpdate(message=ProgressMessage(tool_use_id=self.tool_use_id, data=progress.pop(0)))
                if task.done():
                    yield task.result()
                    return
                if self.ctx.abort_signal.aborted:
                    # aborted: give the tool a moment to clean up after cancellation
                    task.cancel()
                    await asyncio.wait({task}, timeout=5.0)
                    raise AbortError(self.ctx.abort_signal.reason or INTERRUPT_MESSAGE)
        finally:
            remove_abort()
            if not task.done():
                task.cancel()
            # A tool's exception, raised here by task.result(), has this frame in its
            # traceback; the frame must not keep the task that keeps the exception (a cycle).
            del task

    async def _call_holding_resource(self, parsed: Any, on_progress: Any) -> ToolResult:
        name = self.tool.shared_resource
        if name is None:
            return await self.tool.call(parsed, replace(self.ctx, tool_use_id=self.tool_use_id), on_progress)
        async with shared_resource_lock(self.ctx.session, name):
            return await self.tool.call(parsed, replace(self.ctx, tool_use_id=self.tool_use_id), on_progress)

    async def _post_tool_hooks(self, raw: dict[str, Any], result: ToolResult) -> ToolResult:
        """PostToolUse after a success; PostToolUseFailure (with the error) after a failure."""
        event: HookEvent = "PostToolUseFailure" if result.is_error else "PostToolUse"
        if not self.deps.hooks.has(event):
            return result
        if result.is_error:
            hook_input = self._hook_input(event, raw, error=_error_text(result.data), is_interrupt=False)
        else:
            hook_input = self._hook_input(event, raw, tool_response=_jsonable(result.data))
        try:
            hook = await self.deps.hooks.run(event, hook_input, abort_signal=self.ctx.abort_signal)
        except AbortError:
            return result  # the tool ran: its result stands, the loop sees the abort next
        self._hook_notices(hook, event)
        if hook.prevent_continuation:
            self.prevent_continuation = True
        for text in hook.blocking_errors:
            self.extra.append(ToolUpdate(message=AttachmentMessage(kind="hook_blocking_error", content=f"{event} hook feedback:\n{text}")))
        if hook.updated_output is not None and not result.is_error and self.tool.is_mcp:  # updatedMCPToolOutput: MCP only
            return ToolResult(data=hook.updated_output, is_error=result.is_error, new_messages=result.new_messages, context_modifier=result.context_modifier)
        return result

    def _result_message(self, raw: dict[str, Any], result: ToolResult) -> UserMessage:
        content = self.tool.map_result_to_block(result.data, self.tool_use_id)
        sent = process_tool_result_size(
            content,
            tool_use_id=self.tool_use_id,
            max_result_size_chars=self.tool.max_result_size_chars,
            session_dir=self.ctx.session.session_dir,
        )
        # What the model saw (and a file with the rest), never the whole again beside it.
        structured = self.tool.structured_output(result.data) if sent is content else None
        return tool_result_message(self.tool_use_id, sent, is_error=result.is_error, tool_use_result=structured)

    async def _deny_first(self, raw: dict[str, Any], parsed: Any) -> None:
        """Deny rules before the tool's own checks (seed 003 §3.6 step ④): Edit and Write
        look at the file (exists? read? size?) and must say nothing of a denied one."""
        denied = await self.deps.permission_policy.deny_rule_decision(self.tool, parsed, self.ctx)
        if isinstance(denied, PermissionDeny):
            self._record_denial(raw, denied)
            raise _Refused(denied.message)

    def _record_denial(self, raw: dict[str, Any], decision: PermissionDeny) -> None:
        self.deps.on_denial(
            PermissionDenialRecord(tool_name=self.tool.name, tool_use_id=self.tool_use_id, input=raw, message=decision.message)
        )

    async def run(self) -> AsyncIterator[ToolUpdate]:
        raw, parsed = self._parse(self.block.get("input"))
        await self._deny_first(raw, parsed)
        await self._validate(parsed)
        raw, parsed, hook_decision = await self._pre_tool_hooks(raw, parsed)
        for update in self._drain_extra():
            yield update
        raw, parsed = await self._permission(raw, parsed, hook_decision)
        if self.ctx.abort_signal.aborted:  # Stop while the hooks or the approval ran: never start the tool
            raise AbortError(self.ctx.abort_signal.reason or INTERRUPT_MESSAGE)
        result: ToolResult | None = None
        try:
            async for item in self._call(parsed):
                if isinstance(item, ToolResult):
                    result = item
                else:
                    yield item
        except AbortError as exc:
            yield ToolUpdate(message=_interrupted(self.tool_use_id, exc.reason), is_error=True)
            return
        except asyncio.CancelledError:
            raise
        except ToolError as exc:
            result = ToolResult(data=f"<tool_use_error>{exc}</tool_use_error>", is_error=True)
        except Exception as exc:  # a tool's bug must become a readable result, not a crash
            log.debug("tool %s raised", self.tool.name, exc_info=True)
            result = ToolResult(data=f"<tool_use_error>Error: {type(exc).__name__}: {exc}</tool_use_error>", is_error=True)
        assert result is not None
        result = await self._post_tool_hooks(raw, result)
        message = self._result_message(raw, result)
        yield ToolUpdate(
            message=message,
            context_modifier=result.context_modifier,
            prevent_continuation=self.prevent_continuation,
            is_error=result.is_error,
        )
        for update in self._drain_extra():
            yield update
        for extra in result.new_messages:
            yield ToolUpdate(message=extra)

    def _drain_extra(self) -> list[ToolUpdate]:
        out, self.extra = self.extra, []
        return out


async def _race_abort(awaitable: Any, ctx: ToolUseContext) -> Any:
    """Await ``awaitable`` unless the run is aborted first (then raise ``AbortError``)."""
    task = asyncio.ensure_future(awaitable)
    abort_wait = asyncio.ensure_future(ctx.abort_signal.wait())
    try:
        await asyncio.wait({task, abort_wait}, return_when=asyncio.FIRST_COMPLETED)
        if task.done():
            return task.result()
        raise AbortError(ctx.abort_signal.reason or INTERRUPT_MESSAGE)
    finally:
        abort_wait.cancel()
        if not task.done():
            task.cancel()


def shared_resource_lock(session: ToolSession, name: str) -> asyncio.Lock:
    """The lock of a resource shared by every agent of a session (they share its resources)."""
    locks = session.resources.resource_locks
    lock = locks.get(name)
    if lock is None:
        lock = locks[name] = asyncio.Lock()
    return lock


def _consume_exception(task: asyncio.Future[Any]) -> None:
    if not task.cancelled():
        task.exception()


_ERROR_TAGS = re.compile(r"</?tool_use_error>")


def _error_text(data: Any) -> str:
    text = data if isinstance(data, str) else str(_jsonable(data))
    return _ERROR_TAGS.sub("", text).strip()


def _jsonable(data: Any) -> Any:
    if isinstance(data, pydantic.BaseModel):
        return data.model_dump(mode="json")
    return data
