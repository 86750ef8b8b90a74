"""The query loop (SPEC §2): one user submission, ``while True`` over an immutable State.

``query()`` is an async generator. It yields stream events and messages as they happen and
ends by yielding a :class:`~nb_agent.loop.state.Terminal` naming why it stopped. Whatever
happens (tool errors, denials, model errors mid-stream, the user pressing Stop) every
tool_use it yields is answered by exactly one tool_result before it ends.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, field, replace
from typing import Any

from nb_agent.abort import AbortableStream
from nb_agent.context.compaction import CompactionResult
from nb_agent.errors import AbortError, FallbackTriggeredError, MediaTooLargeError, PromptTooLongError
from nb_agent.hooks.effects import hook_notices
from nb_agent.hooks.types import HookEvent, HookInput
from nb_agent.loop.executor import StreamingToolExecutor
from nb_agent.loop.pipeline import ToolUpdate
from nb_agent.loop.state import (
    DEFAULT_MAX_OUTPUT_TOKENS,
    ESCALATED_MAX_OUTPUT_TOKENS,
    MAX_OUTPUT_TOKENS_RECOVERY_LIMIT,
    Continue,
    QueryDeps,
    QueryParams,
    State,
    Terminal,
)
from nb_agent.loop.token_budget import BudgetTracker
from nb_agent.messages import (
    INTERRUPT_MESSAGE,
    ApiHistory,
    AssistantMessage,
    LoopEvent,
    RequestStartEvent,
    SystemMessage,
    TombstoneMessage,
    api_error_message,
    error_tool_result,
    messages_after_compact_boundary,
    meta_user_message,
    strip_thinking_signatures,
)
from nb_agent.model.client import ModelRequest
from nb_agent.model.errors import classify, is_model_api_error, stop_failure_kind
from nb_agent.model.models import max_output_tokens_for
from nb_agent.model.request_shape import DefinitionCache
from nb_agent.tools.base import ToolUseContext

MAX_OUTPUT_TOKENS_RECOVERY_TEXT = (
    "Output token limit hit. Resume directly — no apology, no recap of what you were doing. "
    "Pick up mid-thought if that is where the cut happened. Break remaining work into smaller pieces."
)

QueryEvent = LoopEvent | Terminal


@dataclass(kw_only=True)
class _Turn:
    """One iteration's scratch space (merged into the next State at the end)."""

    executor: StreamingToolExecutor
    """Runs the turn's tool calls: as their blocks arrive while streaming, else after the stream."""
    assistant_messages: list[AssistantMessage] = field(default_factory=list)
    tool_use_blocks: list[dict[str, Any]] = field(default_factory=list)
    tool_results: list[Any] = field(default_factory=list)
    answered: set[str] = field(default_factory=set)
    stop_reason: str | None = None
    output_tokens: int = 0
    withheld: Exception | None = None
    api_error: Exception | None = None
    api_error_kind: str = "unknown"
    """What kind of API error ended the turn (the StopFailure hook's ``error``)."""
    prevent_continuation: bool = False
    definitions: DefinitionCache | None = None
    api_history: ApiHistory | None = None
    """The submission's normalized history, extended turn by turn."""

    def take(self, update: ToolUpdate) -> LoopEvent:
        message = update.message
        if message.type == "user":
            self.answered.update(message.tool_result_ids)
            self.tool_results.append(message)
        elif message.type == "attachment":
            self.tool_results.append(message)
        if update.prevent_continuation:
            self.prevent_continuation = True
        return message

    def unanswered(self) -> list[dict[str, Any]]:
        return [b for b in self.tool_use_blocks if b["id"] not in self.answered]


def _build_request(
    params: QueryParams,
    state: State,
    window: list[Any],
    model: str,
    definitions: DefinitionCache | None = None,
    api_history: ApiHistory | None = None,
) -> ModelRequest:
    max_tokens = state.max_output_tokens_override or params.max_output_tokens or DEFAULT_MAX_OUTPUT_TOKENS
    max_tokens = min(max_tokens, max_output_tokens_for(model))  # escalation never exceeds the model
    return params.shape.request(
        window, state.tool_use_context.tools, max_tokens=max_tokens, model=model, definitions=definitions, api_history=api_history
    )


async def _prepare_window(state: State, deps: QueryDeps) -> tuple[list[Any], CompactionResult | None, Any]:
    """Step 1: snip → the tiers rewriting old tool results (result budget, microcompact,
    image window) → autocompact. ``state.messages`` already starts at the last compact
    boundary (:func:`query` cuts it once; a compaction's window starts with its boundary)."""
    ctx = state.tool_use_context
    window = state.messages
    if deps.snip is not None:
        window = deps.snip(window)
    if deps.rewrite_tool_results is not None:
        window = await deps.rewrite_tool_results(window, ctx)
    if deps.apply_tool_result_budget is not None:
        window = await deps.apply_tool_result_budget(window)
    window = await deps.microcompact(window, ctx)
    compaction, tracking = await deps.autocompact(window, ctx, state.auto_compact_tracking)
    if compaction is not None:
        window = compaction.messages
    return window, compaction, tracking


async def _drain_after_abort(turn: _Turn) -> AsyncIterator[LoopEvent]:
    """Answer every tool_use after an abort: running tools end with 'Interrupted by user'."""
    async for update in turn.executor.get_remaining_results():
        yield turn.take(update)
    for block in turn.unanswered():
        yield turn.take(ToolUpdate(message=error_tool_result(block["id"], INTERRUPT_MESSAGE), is_error=True))


async def _drain_after_model_error(turn: _Turn, error_text: str) -> AsyncIterator[LoopEvent]:
    """Keep results of tools that already finished; cancel the rest and answer them."""
    for update in turn.executor.get_completed_results():
        yield turn.take(update)
    turn.executor.discard()
    for block in turn.unanswered():
        text = f"The model response failed before this tool call could run: {error_text}"
        yield turn.take(ToolUpdate(message=error_tool_result(block["id"], text), is_error=True))


def _withdraw_attempt(turn: _Turn, params: QueryParams, ctx: ToolUseContext) -> list[LoopEvent]:
    """Take back what a failed attempt yielded (fallback switch, stream retry): tombstone its
    assistant messages and the tool results they got, and start a fresh executor."""
    events: list[LoopEvent] = [TombstoneMessage(target_uuid=m.uuid) for m in turn.assistant_messages]
    events += [TombstoneMessage(target_uuid=m.uuid) for m in turn.tool_results]
    turn.executor.discard()
    turn.executor = StreamingToolExecutor(ctx=ctx, deps=params.tool_run_deps)
    turn.assistant_messages.clear()
    turn.tool_use_blocks.clear()
    turn.tool_results.clear()
    turn.answered.clear()
    turn.stop_reason = None
    turn.prevent_continuation = False
    return events


async def _stream_model(
    params: QueryParams, deps: QueryDeps, state: State, window: list[Any], turn: _Turn, model_ref: list[str]
) -> AsyncIterator[LoopEvent]:
    """Step 3: stream the model, handing tool_use blocks to the executor as they complete."""
    ctx = state.tool_use_context
    while True:
        model = model_ref[0]
        request = _build_request(params, state, window, model, turn.definitions, turn.api_history)
        yield RequestStartEvent(model=model)
        stream = AbortableStream(deps.call_model(request), ctx.abort_signal)
        try:
            async for item in stream:
                if item.type == "stream_event":
                    event = item.event
                    if event.type == "message_delta":
                        turn.stop_reason = event.delta.stop_reason
                        turn.output_tokens += int(getattr(event.usage, "output_tokens", 0) or 0)
                    yield item
                    continue
                if item.type == "stream_retry":
                    # The retry policy restarts a stream that failed midway: withdraw this attempt.
                    for event in _withdraw_attempt(turn, params, ctx):
                        yield event
                    yield RequestStartEvent(model=model)
                    continue
                if item.type == "system":  # retry notices
                    yield item
                    continue
                turn.assistant_messages.append(item)
                yield item
                for block in item.tool_uses:
                    turn.tool_use_blocks.append(block)
                    if params.streaming_tool_execution:  # else they start when the stream has ended
                        turn.executor.add_tool(block)
                for update in turn.executor.get_completed_results():
                    yield turn.take(update)
                if ctx.abort_signal.aborted:
                    return
            return
        except FallbackTriggeredError as exc:
            # Withdraw what the overloaded model said and start over on the fallback.
            for event in _withdraw_attempt(turn, params, ctx):
                yield event
            window[:] = strip_thinking_signatures(window)
            model_ref[0] = exc.fallback_model
            yield SystemMessage(
                level="warning",
                subtype="fallback",
                content=f"Switched to {exc.fallback_model} due to high demand for {exc.original_model}",
            )
        except (PromptTooLongError, MediaTooLargeError) as exc:
            turn.withheld = exc  # recoverable: decided after the stream, not shown yet
            return
        except Exception as exc:
            if not is_model_api_error(exc):
                raise
            error = classify(exc)
            if isinstance(error, (PromptTooLongError, MediaTooLargeError)):
                turn.withheld = error  # the SDK's 400/413, recognised only once classified
                return
            turn.api_error = error
            turn.api_error_kind = stop_failure_kind(exc)
            yield api_error_message(str(turn.api_error), model=model)
            return
        finally:
            await stream.aclose()


async def query(params: QueryParams, deps: QueryDeps) -> AsyncIterator[QueryEvent]:
    """Run the agent loop for one submission. The last item yielded is a ``Terminal``."""
    state = State(messages=list(messages_after_compact_boundary(params.messages)), tool_use_context=params.tool_use_context)
    budget = BudgetTracker(budget=params.token_budget) if params.token_budget else None
    is_subagent = params.query_source.startswith("agent")
    model_ref = [params.model]
    definitions = DefinitionCache()
    api_history = params.api_history or ApiHistory()
    total_output_tokens = 0
    pending_summary: asyncio.Future[Any] | None = None
    try:
        while True:
            ctx = state.tool_use_context
            abort = ctx.abort_controller
            try:
                window, compaction, tracking = await _prepare_window(state, deps)
            except asyncio.CancelledError:
                abort.abort(INTERRUPT_MESSAGE)
                yield Terminal(reason="aborted_streaming", turn_count=state.turn_count)
                return
            if compaction is not None:
                yield compaction.boundary
                for message in compaction.extra_messages:
                    yield message
            if deps.is_at_blocking_limit(window, model_ref[0]):
                yield SystemMessage(
                    level="error",
                    subtype="blocking_limit",
                    content="The conversation is too long for the model's context window. Compact it (%agent compact) or start a new one.",
                )
                yield Terminal(reason="blocking_limit", turn_count=state.turn_count)
                return

            executor = StreamingToolExecutor(ctx=ctx, deps=params.tool_run_deps)
            turn = _Turn(executor=executor, definitions=definitions, api_history=api_history)
            try:
                async for event in _stream_model(params, deps, state, window, turn, model_ref):
                    yield event
            except asyncio.CancelledError:
                abort.abort(INTERRUPT_MESSAGE)  # the notebook's Stop button arrives as a cancellation
            total_output_tokens += turn.output_tokens
            if pending_summary is not None and pending_summary.done():
                summary = None if pending_summary.cancelled() or pending_summary.exception() else pending_summary.result()
                pending_summary = None
                if summary is not None:
                    yield summary

            if abort.signal.aborted:
                async for event in _drain_after_abort(turn):
                    yield event
                yield Terminal(reason="aborted_streaming", turn_count=state.turn_count)
                return

            if turn.api_error is not None and turn.tool_use_blocks:
                async for event in _drain_after_model_error(turn, str(turn.api_error)):
                    yield event
                for event in await _stop_failure_hooks(params, state, turn):
                    yield event
                yield Terminal(reason="model_error", error=str(turn.api_error), turn_count=state.turn_count)
                return

            if not turn.tool_use_blocks:
                outcome = await _finish_without_tools(params, deps, state, window, turn, budget, total_output_tokens, is_subagent)
                for event in outcome.events:
                    yield event
                if outcome.terminal is not None:
                    yield outcome.terminal
                    return
                assert outcome.next_state is not None
                state = replace(outcome.next_state, auto_compact_tracking=tracking)
                continue

            # Step 5: the tool path.
            try:
                if not params.streaming_tool_execution:
                    for block in turn.tool_use_blocks:
                        turn.executor.add_tool(block)
                async for update in turn.executor.get_remaining_results():
                    yield turn.take(update)
            except asyncio.CancelledError:
                abort.abort(INTERRUPT_MESSAGE)
            if abort.signal.aborted:
                async for event in _drain_after_abort(turn):
                    yield event
                yield Terminal(reason="aborted_tools", turn_count=state.turn_count)
                return
            if turn.prevent_continuation or turn.executor.prevent_continuation:
                yield SystemMessage(level="info", subtype="hook_stopped", content="A hook stopped the run after this tool call.")
                yield Terminal(reason="hook_stopped", turn_count=state.turn_count)
                return
            if deps.between_turns is not None:
                for attachment in await deps.between_turns():
                    turn.tool_results.append(attachment)
                    yield attachment
            if deps.turn_attachments is not None:
                for attachment in deps.turn_attachments(turn.tool_use_blocks, turn.tool_results):
                    turn.tool_results.append(attachment)
                    yield attachment
            if deps.summarize_tool_uses is not None:
                pending_summary = asyncio.ensure_future(deps.summarize_tool_uses(turn.tool_use_blocks, turn.tool_results))
            next_ctx = turn.executor.context  # with the unsafe tools' context modifiers applied
            if deps.refresh_tools is not None:
                next_ctx = await deps.refresh_tools(next_ctx)
            next_turn = state.turn_count + 1
            if params.max_turns is not None and next_turn > params.max_turns:
                yield SystemMessage(level="warning", subtype="max_turns", content=f"Reached the maximum number of turns ({params.max_turns}).")
                yield Terminal(reason="max_turns", turn_count=state.turn_count)
                return
            state = State(
                messages=[*window, *turn.assistant_messages, *turn.tool_results],
                tool_use_context=next_ctx,
                auto_compact_tracking=tracking,
                # kept: a Stop hook that blocked is still active after the tools it asked for
                stop_hook_active=state.stop_hook_active,
                turn_count=next_turn,
                transition=Continue(reason="next_turn"),
            )
    finally:
        if pending_summary is not None and not pending_summary.done():
            pending_summary.cancel()


@dataclass(kw_only=True)
class _Outcome:
    events: list[LoopEvent] = field(default_factory=list)
    terminal: Terminal | None = None
    next_state: State | None = None


async def _finish_without_tools(
    params: QueryParams,
    deps: QueryDeps,
    state: State,
    window: list[Any],
    turn: _Turn,
    budget: BudgetTracker | None,
    total_output_tokens: int,
    is_subagent: bool,
) -> _Outcome:
    """Step 4: recovery paths, then stop hooks, then token budget, else completed."""
    out = _Outcome()
    ctx = state.tool_use_context
    withheld = turn.withheld
    if withheld is not None:
        return await _recover_from_withheld(deps, state, window, withheld, out)
    if turn.stop_reason == "max_tokens":
        return _recover_from_max_tokens(params, state, window, turn, out)
    if turn.api_error is not None:  # StopFailure hooks instead of Stop (seed 002 §11.5)
        out.events.extend(await _stop_failure_hooks(params, state, turn))
        out.terminal = Terminal(reason="completed", error=str(turn.api_error), turn_count=state.turn_count)
        return out
    hooks = params.tool_run_deps.hooks
    event: HookEvent = "SubagentStop" if params.subagent is not None else "Stop"
    if hooks.has(event):
        try:
            result = await hooks.run(event, _stop_hook_input(params, state, turn, event), abort_signal=ctx.abort_signal)
        except AbortError:  # Stop pressed while the hook ran: it was killed, the run ends
            out.terminal = Terminal(reason="aborted_tools", turn_count=state.turn_count)
            return out
        out.events.extend(hook_notices(result, event))
        if result.prevent_continuation:
            reason = result.stop_reason or f"a {event} hook prevented continuation"
            out.events.append(SystemMessage(level="info", subtype="stop_hook_prevented", content=reason))
            out.terminal = Terminal(reason="stop_hook_prevented", turn_count=state.turn_count)
            return out
        if result.blocking_errors:
            if params.max_turns is not None and state.turn_count + 1 > params.max_turns:
                out.events.append(SystemMessage(level="warning", subtype="max_turns", content=f"Reached the maximum number of turns ({params.max_turns})."))
                out.terminal = Terminal(reason="max_turns", turn_count=state.turn_count)
                return out
            feedback = meta_user_message(f"{event} hook feedback:\n" + "\n".join(result.blocking_errors))
            out.events.append(feedback)
            out.next_state = State(
                messages=[*window, *turn.assistant_messages, feedback],
                tool_use_context=ctx,
                # kept so compact → prompt-too-long → hook → compact cannot loop
                has_attempted_reactive_compact=state.has_attempted_reactive_compact,
                stop_hook_active=True,
                turn_count=state.turn_count + 1,
                transition=Continue(reason="stop_hook_blocking"),
            )
            return out
    if budget is not None and budget.should_continue(total_output_tokens, is_subagent=is_subagent):
        nudge = meta_user_message(budget.nudge(total_output_tokens))
        out.events.append(nudge)
        out.next_state = State(
            messages=[*window, *turn.assistant_messages, nudge],
            tool_use_context=ctx,
            turn_count=state.turn_count + 1,
            transition=Continue(reason="token_budget_continuation"),
        )
        return out
    out.terminal = Terminal(reason="completed", turn_count=state.turn_count)
    return out


async def _stop_failure_hooks(params: QueryParams, state: State, turn: _Turn) -> list[LoopEvent]:
    """The turn ended with an API error: StopFailure hooks run (side effects only: their
    output and exit codes change nothing), with the error's kind and message."""
    hooks = params.tool_run_deps.hooks
    if not hooks.has("StopFailure"):
        return []
    hook_input = replace(
        _stop_hook_input(params, state, turn, "StopFailure"),
        stop_hook_active=None,
        error=turn.api_error_kind,
        error_details=str(turn.api_error),
        last_assistant_message=next((m.text for m in reversed(turn.assistant_messages) if m.text and not m.is_api_error_message), None),
    )
    try:
        result = await hooks.run("StopFailure", hook_input, abort_signal=state.tool_use_context.abort_signal)
    except AbortError:
        return []
    return list(hook_notices(result, "StopFailure"))


def _stop_hook_input(params: QueryParams, state: State, turn: _Turn, event: HookEvent) -> HookInput:
    ctx = state.tool_use_context
    agent = params.subagent
    last = next((m.text for m in reversed(turn.assistant_messages) if m.text), None)
    return HookInput(
        hook_event_name=event,
        session_id=ctx.session_id,
        cwd=str(ctx.cwd),
        permission_mode=ctx.permission_mode,
        stop_hook_active=state.stop_hook_active,
        transcript_path=ctx.services.transcript_path,
        agent_id=agent.agent_id if agent else None,
        agent_type=agent.agent_type if agent else None,
        agent_transcript_path=agent.agent_transcript_path if agent else None,
        last_assistant_message=last if agent else None,
    )


async def _recover_from_withheld(deps: QueryDeps, state: State, window: list[Any], withheld: Exception, out: _Outcome) -> _Outcome:
    ctx = state.tool_use_context
    is_ptl = isinstance(withheld, PromptTooLongError)
    if is_ptl and deps.collapse_drain is not None and (state.transition is None or state.transition.reason != "collapse_drain_retry"):
        drained = await deps.collapse_drain(window)
        if drained is not None:
            out.next_state = replace(state, messages=drained, transition=Continue(reason="collapse_drain_retry"))
            return out
    if deps.reactive_compact is not None and not state.has_attempted_reactive_compact:
        compacted = await deps.reactive_compact(window, ctx)
        if compacted is not None:
            out.events.append(compacted.boundary)
            out.events.extend(compacted.extra_messages)
            out.next_state = replace(
                state,
                messages=compacted.messages,
                has_attempted_reactive_compact=True,
                transition=Continue(reason="reactive_compact_retry"),
            )
            return out
    out.events.append(api_error_message(str(withheld), model=ctx.model or ""))
    reason = "prompt_too_long" if is_ptl else "image_error"
    out.terminal = Terminal(reason=reason, error=str(withheld), turn_count=state.turn_count)
    return out


def _recover_from_max_tokens(params: QueryParams, state: State, window: list[Any], turn: _Turn, out: _Outcome) -> _Outcome:
    if (
        state.max_output_tokens_override is None
        and params.max_output_tokens is None
        and max_output_tokens_for(params.model) > DEFAULT_MAX_OUTPUT_TOKENS
    ):
        # Retry the same request with a higher cap; withdraw the cut-off answer.
        out.events.extend(TombstoneMessage(target_uuid=m.uuid) for m in turn.assistant_messages)
        out.next_state = replace(
            state,
            messages=window,
            max_output_tokens_override=ESCALATED_MAX_OUTPUT_TOKENS,
            transition=Continue(reason="max_output_tokens_escalate"),
        )
        return out
    if state.max_output_tokens_recovery_count < MAX_OUTPUT_TOKENS_RECOVERY_LIMIT:
        nudge = meta_user_message(MAX_OUTPUT_TOKENS_RECOVERY_TEXT)
        out.events.append(nudge)
        out.next_state = replace(
            state,
            messages=[*window, *turn.assistant_messages, nudge],
            max_output_tokens_recovery_count=state.max_output_tokens_recovery_count + 1,
            transition=Continue(reason="max_output_tokens_recovery"),
        )
        return out
    cap = state.max_output_tokens_override or params.max_output_tokens or DEFAULT_MAX_OUTPUT_TOKENS
    out.events.append(
        SystemMessage(level="error", subtype="max_output_tokens", content=f"The response was cut off at the output token limit ({cap:,}) after {MAX_OUTPUT_TOKENS_RECOVERY_LIMIT} attempts to continue.")
    )
    out.terminal = Terminal(reason="completed", error="max_output_tokens", turn_count=state.turn_count)
    return out


__all__ = ["QueryEvent", "query"]
