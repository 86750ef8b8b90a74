"""A session's context management: the state behind the loop's context deps.

:class:`ContextManager` is owned by the ``QueryEngine``. It keeps what must outlive one
submission — the content-replacement decisions, microcompact clears, image evictions, the
API's reported context sizes — records decisions in the transcript, rebuilds them on
resume, and hands the loop its ``QueryDeps``: snip → the tiers that rewrite old tool
results (tool-result budget, microcompact, image window; one incremental pass, see
``result_rewrites``) → autocompact, plus the blocking-limit check, reactive compaction
after a prompt-too-long and the optional tool-use summaries. (SPEC §2 puts the budget
before snip; snip is off by default and only drops old messages, whose results the
budget no longer decides.)
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from nb_agent.abort import AbortSignal
from nb_agent.context.autocompact import autocompact_if_needed, is_compaction_failure
from nb_agent.context.compact import CompactionError, CompactTrigger, ShapedRequest, compact_conversation
from nb_agent.context.compaction import AutoCompactTracking, CompactionResult
from nb_agent.context.config import ContextConfig, ContextThresholds, thresholds_for
from nb_agent.context.content_replacement import TRANSCRIPT_KIND as REPLACEMENT_KIND
from nb_agent.context.content_replacement import (
    ContentReplacementState,
    reconstruct_content_replacement_state,
    records_from_entries,
)
from nb_agent.context.images import TRANSCRIPT_KIND as IMAGE_KIND
from nb_agent.context.images import ImageWindowState, clamp_keep, state_from_entries
from nb_agent.context.microcompact import TRANSCRIPT_KIND as MICROCOMPACT_KIND
from nb_agent.context.microcompact import MicrocompactState, Trigger, minutes_since_last_assistant
from nb_agent.context.result_rewrites import ToolResultRewrites
from nb_agent.context.snip import snip_history
from nb_agent.context.tokens import UsageAnchors, estimate_api_messages_tokens, estimate_text_tokens
from nb_agent.context.tool_result_storage import TOOL_RESULTS_SUBDIR
from nb_agent.context.tool_results import tool_result_ids
from nb_agent.context.tool_use_summary import QUERY_SOURCE as SUMMARY_SOURCE
from nb_agent.context.tool_use_summary import generate_tool_use_summary
from nb_agent.messages import UserMessage
from nb_agent.model.model_ids import small_fast_model
from nb_agent.model.pricing import Usage
from nb_agent.model.request_shape import RequestShape
from nb_agent.model.retry import RetryContext, RetryPolicy, call_with_retry
from nb_agent.tools.base import Tool, ToolUseContext

log = logging.getLogger(__name__)

PROMPT_CACHE_TTL_MINUTES = 5.0
"""The API's default cache lifetime: a time-based clear before it would throw a live cache away."""
MIN_PRESSURE_CLEAR_TOKENS = 5_000
"""Microcompact's pressure mode runs only if it would free at least this much."""
COMPACT_QUERY_SOURCE = "compact"

CreateMessage = Callable[[dict[str, Any]], Awaitable[Any]]
"""A non-streaming Messages API call (``ModelTransport.create``)."""


async def _unless_aborted(call: Awaitable[Any], signal: AbortSignal) -> Any:
    task = asyncio.ensure_future(call)
    stop = asyncio.ensure_future(signal.wait())
    try:
        await asyncio.wait({task, stop}, return_when=asyncio.FIRST_COMPLETED)
        if task.done():
            return task.result()
        raise CompactionError(f"Interrupted: {signal.reason or 'stopped'}")
    finally:
        for pending in (task, stop):
            if not pending.done():
                pending.cancel()


def _utcnow() -> datetime:
    return datetime.now(timezone.utc)


def _response_text(message: Any) -> str:
    return "".join(getattr(b, "text", "") or "" for b in getattr(message, "content", []) if getattr(b, "type", "") == "text")


def _usage_of(message: Any) -> Usage:
    raw = getattr(message, "usage", None)

    def pick(name: str) -> int:
        return int(getattr(raw, name, 0) or 0)

    return Usage(
        input_tokens=pick("input_tokens"),
        output_tokens=pick("output_tokens"),
        cache_creation_input_tokens=pick("cache_creation_input_tokens"),
        cache_read_input_tokens=pick("cache_read_input_tokens"),
    )


@dataclass(kw_only=True)
class ContextStats:
    """Counts for UIs and benchmarks."""

    compactions: dict[str, int] = field(default_factory=lambda: {"auto": 0, "manual": 0, "reactive": 0})
    compaction_failures: int = 0
    microcompact_clears: int = 0
    microcompact_clears_by_trigger: dict[str, int] = field(default_factory=lambda: {"time": 0, "pressure": 0})
    """Each clear rewrites old history and so invalidates the prompt cache from there on:
    time-based ones come after the cache expired anyway, pressure ones cost a cache write."""
    results_replaced: int = 0
    images_evicted: int = 0
    last_tokens: int = 0
    """The window size measured at the last autocompact check."""


class ContextManager:
    """Context management for one session (see the module doc)."""

    def __init__(
        self,
        *,
        config: ContextConfig,
        create: CreateMessage,
        record: Callable[..., None] = lambda kind, **payload: None,
        session_dir: Callable[[], Path | None] = lambda: None,
        on_usage: Callable[[str, Usage], None] | None = None,
        retry_policy: RetryPolicy | None = None,
        clock: Callable[[], datetime] = _utcnow,
        on_compaction: Callable[[CompactionResult], None] | None = None,
        before_compact: Callable[[str, str | None], Awaitable[tuple[str | None, list[Any]]]] | None = None,
        after_compact: Callable[[CompactionResult, list[Any]], Awaitable[CompactionResult]] | None = None,
    ) -> None:
        self.config = config
        self._create = create
        self._record = record
        self._session_dir = session_dir
        self._on_usage = on_usage
        self.retry_policy = retry_policy or RetryPolicy()
        self.clock = clock
        self.on_compaction = on_compaction
        """Called after every successful compaction (the engine clears memoized context)."""
        self.before_compact = before_compact
        """PreCompact hooks: ``(trigger, instructions) -> (instructions, notices)``; may raise
        ``CompactionError`` to stop the compaction."""
        self.after_compact = after_compact
        """SessionStart (compact) hooks: ``(result, notices) -> result`` with their context added."""
        self.anchors = UsageAnchors()
        self.stats = ContextStats()
        self.request_shape: Callable[[], RequestShape | None] = lambda: None
        """The conversation's request shape (the engine's latest): compactions ask over it."""
        self._set_states(ContentReplacementState(), MicrocompactState(), ImageWindowState())
        self._cell_start = True
        """The next rewrite is the first of a submission (the image window evicts then)."""
        self._skip_key: tuple[int, ...] = ()
        self._skip: frozenset[str] = frozenset()

    # --- bookkeeping ------------------------------------------------------------------------
    def thresholds(self, model: str) -> ContextThresholds:
        return thresholds_for(model, self.config)

    def token_count(self, messages: list[Any]) -> int:
        """The window's tokens: the last reported usage plus an estimate of what followed."""
        return self.anchors.estimate(messages)

    def record_response(self, last_uuid: str | None, usage: Usage) -> None:
        """A response finished: its usage is the exact size of the window up to it."""
        if last_uuid:
            self.anchors.record(last_uuid, usage.context_tokens + usage.output_tokens)

    def _set_states(
        self, replacement: ContentReplacementState, microcompact: MicrocompactState, images: ImageWindowState
    ) -> None:
        """Install the decisions (and a fresh scan of the window over them)."""
        self.replacement_state = replacement
        self.microcompact_state = microcompact
        self.image_state = images
        self.rewrites = ToolResultRewrites(
            replacement=replacement, microcompact=microcompact, images=images, compactable_tools=self.config.compactable_tools
        )

    def begin_submission(self) -> None:
        """A new submission (a cell) starts: the image window may evict at its first request."""
        self._cell_start = True

    def reset(self) -> None:
        """A new conversation: forget every decision and everything scanned."""
        self._set_states(ContentReplacementState(), MicrocompactState(), ImageWindowState())
        self.anchors.clear()

    def restore(self, messages: list[Any], entries: Sequence[dict[str, Any]]) -> None:
        """Rebuild the state of a resumed session from its transcript entries."""
        present = tool_result_ids(messages)
        replacement = reconstruct_content_replacement_state(
            messages, records_from_entries(e for e in entries if e.get("kind") == REPLACEMENT_KIND), present=present
        )
        cleared = {i for e in entries if e.get("kind") == MICROCOMPACT_KIND for i in e.get("cleared", [])}
        self._set_states(replacement, MicrocompactState(cleared_ids=cleared & present), state_from_entries(entries, present))
        self.anchors.clear()
        uuids = {m.uuid for m in messages}
        for entry in entries:
            anchor = entry.get("anchor_uuid")
            if entry.get("kind") == "usage" and isinstance(anchor, str) and anchor in uuids:
                usage = Usage(**entry["usage"])
                self.anchors.record(anchor, usage.context_tokens + usage.output_tokens)

    def inherit(self, parent: ContextManager) -> None:
        """Take over ``parent``'s decisions (a fork: its history must be sent as the parent
        sends it, replacements and clearings included, to read the parent's cache)."""
        self._set_states(parent.replacement_state.clone(), parent.microcompact_state.clone(), parent.image_state.clone())
        self.anchors = UsageAnchors(anchors=dict(parent.anchors.anchors), freed=dict(parent.anchors.freed))

    def clone(self) -> ContextManager:
        """A fork sharing the parent's decisions (prompt-cache stable), then independent."""
        twin = ContextManager(
            config=self.config,
            create=self._create,
            record=self._record,
            session_dir=self._session_dir,
            on_usage=self._on_usage,
            retry_policy=self.retry_policy,
            clock=self.clock,
            on_compaction=self.on_compaction,
            before_compact=self.before_compact,
            after_compact=self.after_compact,
        )
        twin._set_states(self.replacement_state.clone(), self.microcompact_state.clone(), self.image_state.clone())
        twin.anchors = UsageAnchors(anchors=dict(self.anchors.anchors), freed=dict(self.anchors.freed))
        return twin

    @property
    def results_dir(self) -> Path | None:
        session_dir = self._session_dir()
        return None if session_dir is None else session_dir / TOOL_RESULTS_SUBDIR

    # --- model calls ---------------------------------------------------------------------------
    async def ask(self, request: dict[str, Any], *, query_source: str, abort_signal: AbortSignal | None = None) -> str:
        """One non-streaming request with retries; returns the answer's text.

        With an ``abort_signal``, pressing Stop ends the wait at once (``CompactionError``)."""
        message = await self.create_message(request, query_source=query_source, abort_signal=abort_signal)
        return _response_text(message)

    async def create_message(
        self, request: dict[str, Any], *, query_source: str, abort_signal: AbortSignal | None = None
    ) -> Any:
        """:meth:`ask`, returning the SDK ``Message`` itself (a tool's side call needs its blocks)."""
        context = RetryContext(query_source=query_source, model=request["model"], abort_signal=abort_signal)
        call = call_with_retry(lambda: self._create(request), policy=self.retry_policy, context=context)
        message = await (call if abort_signal is None else _unless_aborted(call, abort_signal))
        if self._on_usage is not None:
            self._on_usage(getattr(message, "model", None) or request["model"], _usage_of(message))
        return message

    # --- the tiers --------------------------------------------------------------------------------
    def snip(self, messages: list[Any]) -> list[Any]:
        return snip_history(messages, self.config.snip_max_messages)

    def _skip_tools(self, tools: Sequence[Tool[Any]]) -> frozenset[str]:
        """Tools whose results the budget never replaces (``Read``: unbounded by design)."""
        key = tuple(map(id, tools))
        if key != self._skip_key:
            self._skip_key = key
            self._skip = frozenset(t.name for t in tools if not math.isfinite(t.max_result_size_chars))
        return self._skip

    async def rewrite_tool_results(self, messages: list[Any], ctx: ToolUseContext, tools: Sequence[Tool[Any]] = ()) -> list[Any]:
        """The result budget, microcompact and the image window over ``messages`` (a window),
        applied incrementally; their new decisions are recorded in the transcript."""
        config, rewrites = self.config, self.rewrites
        rewrites.sync(messages)
        if config.tool_result_budget:
            decided = rewrites.decide_budget(
                budget_chars=config.tool_result_budget_chars, skip=self._skip_tools(tools), results_dir=self.results_dir
            )
            if decided:
                self._record(REPLACEMENT_KIND, records=[r.to_json() for r in decided])
                self.stats.results_replaced += sum(1 for r in decided if r.replacement is not None)
        trigger = self._microcompact_trigger(messages, ctx.model) if config.microcompact else None
        if trigger is not None:
            cleared, freed = rewrites.clear(config.microcompact_keep_recent)
            for index, tokens in freed.items():
                self.anchors.note_freed(messages, index, tokens)
            if cleared:
                self._record(MICROCOMPACT_KIND, cleared=cleared, trigger=trigger)
                self.stats.microcompact_clears += 1
                self.stats.microcompact_clears_by_trigger[trigger] += 1
        cell_start, self._cell_start = self._cell_start, False
        if config.image_window:
            evicted = rewrites.evict_images(
                keep=clamp_keep(config.keep_images),
                byte_budget=config.image_bytes_budget,
                cell_start=cell_start,
                results_dir=self.results_dir,
            )
            if evicted:
                self._record(IMAGE_KIND, evicted=evicted)
                self.stats.images_evicted += len(evicted)
        return rewrites.window()

    def _microcompact_trigger(self, messages: list[Any], model: str) -> Trigger | None:
        minutes = minutes_since_last_assistant(messages, self.clock())
        # never while the prompt cache may still hold the history: rewriting it would cost a write
        if minutes is not None and minutes >= max(self.config.microcompact_gap_minutes, PROMPT_CACHE_TTL_MINUTES):
            return "time"
        if self.token_count(messages) >= self.thresholds(model).warning:
            if self.rewrites.clearable_tokens(self.config.microcompact_keep_recent) >= MIN_PRESSURE_CLEAR_TOKENS:
                return "pressure"
        return None

    async def autocompact(
        self, messages: list[Any], ctx: ToolUseContext, tracking: AutoCompactTracking
    ) -> tuple[CompactionResult | None, AutoCompactTracking]:
        tokens = self.token_count(messages)
        self.stats.last_tokens = tokens
        if not self.config.auto_compact:
            return None, tracking

        def failed(exc: Exception, now: AutoCompactTracking) -> None:
            self.stats.compaction_failures += 1
            self._record("compaction_failed", trigger="auto", error=str(exc), consecutive_failures=now.consecutive_failures)

        return await autocompact_if_needed(
            tokens,
            self.thresholds(ctx.model),
            tracking,
            lambda: self.compact(messages, model=ctx.model, trigger="auto", pre_tokens=tokens, abort_signal=ctx.abort_signal, tools=ctx.tools),
            on_failure=failed,
        )

    def _shaped_summary(self, tools: Sequence[Tool[Any]], summary_model: str) -> ShapedRequest | None:
        """The summary request built as the conversation's next one (None: no shape yet, or a
        summary model other than the conversation's: the cache is per model)."""
        shape = self.request_shape()
        if shape is None or (self.config.compact_model and self.config.compact_model != shape.model):
            return None
        limit = self.thresholds(shape.model).context_window

        def build(messages: list[Any], prompt: str, max_tokens: int) -> dict[str, Any] | None:
            request = shape.request([*messages, UserMessage(content=prompt, is_meta=True)], list(tools), max_tokens=max_tokens)
            fixed = estimate_text_tokens(json.dumps([request.system, request.tools], default=str))
            if fixed + estimate_api_messages_tokens(request.messages) + max_tokens > limit:
                return None  # as long as the conversation: it would not fit either
            return request.to_api()

        return build

    async def reactive_compact(self, messages: list[Any], ctx: ToolUseContext) -> CompactionResult | None:
        """After a prompt-too-long / media error: compact once, media stripped; None on failure."""
        try:
            return await self.compact(messages, model=ctx.model, trigger="reactive", strip_media=True, abort_signal=ctx.abort_signal)
        except Exception as exc:
            if not is_compaction_failure(exc):
                raise
            self.stats.compaction_failures += 1
            self._record("compaction_failed", trigger="reactive", error=str(exc))
            return None

    def is_at_blocking_limit(self, messages: list[Any], model: str) -> bool:
        """At the hard limit with autocompact off (seed 004): the run must stop and leave room
        for a manual compact. With autocompact on, the loop goes on (a compaction, or the API's
        prompt-too-long and reactive compact, handles an oversized window)."""
        if self.config.auto_compact:
            return False
        return self.token_count(messages) >= self.thresholds(model).blocking

    async def compact(
        self,
        messages: list[Any],
        *,
        model: str,
        trigger: CompactTrigger,
        instructions: str | None = None,
        pre_tokens: int | None = None,
        strip_media: bool = False,
        abort_signal: AbortSignal | None = None,
        tools: Sequence[Tool[Any]] = (),
    ) -> CompactionResult:
        """Summarize ``messages`` (a window); raises ``CompactionError`` on failure. With the
        conversation's request shape known, the summary is asked as its next request over
        ``tools`` (reading the prompt cache); a reactive compaction (the conversation no
        longer fits) asks the plain way."""
        thresholds = self.thresholds(model)
        summary_model = self.config.compact_model or model
        notices: list[Any] = []
        if self.before_compact is not None:
            instructions, notices = await self.before_compact(trigger, instructions)

        async def summarize(request: dict[str, Any]) -> str:
            return await self.ask(request, query_source=COMPACT_QUERY_SOURCE, abort_signal=abort_signal)

        try:
            result = await compact_conversation(
                messages,
                summarize=summarize,
                model=summary_model,
                trigger=trigger,
                pre_tokens=self.token_count(messages) if pre_tokens is None else pre_tokens,
                context_window=thresholds.context_window,
                max_output_tokens=thresholds.max_output_tokens,
                keep_recent_tokens=0 if trigger == "manual" else self.config.keep_recent_tokens,
                instructions=instructions,
                strip_media=strip_media,
                shaped=None if trigger == "reactive" else self._shaped_summary(tools, summary_model),
            )
        except CompactionError:
            raise
        except Exception as exc:
            if not is_compaction_failure(exc):
                raise
            raise CompactionError(f"Compaction failed: {exc}") from exc
        self.stats.compactions[trigger] += 1
        self._record("compaction", trigger=trigger, pre_tokens=result.boundary.pre_tokens, kept=len(result.messages) - 1)
        if self.on_compaction is not None:
            self.on_compaction(result)
        if self.after_compact is not None:
            result = await self.after_compact(result, notices)
        return result

    async def summarize_tool_uses(self, tool_use_blocks: list[Any], tool_results: list[Any]) -> Any:
        async def ask(request: dict[str, Any]) -> str:
            return await self.ask(request, query_source=SUMMARY_SOURCE)

        model = self.config.summary_model or small_fast_model()
        return await generate_tool_use_summary(tool_use_blocks, tool_results, ask=ask, model=model)

    # --- wiring -----------------------------------------------------------------------------------
    def query_deps(self, tools: Sequence[Tool[Any]] = ()) -> dict[str, Any]:
        """The ``QueryDeps`` fields this session provides."""
        pool = list(tools)

        async def rewrite(messages: list[Any], ctx: ToolUseContext) -> list[Any]:
            return await self.rewrite_tool_results(messages, ctx, pool)

        deps: dict[str, Any] = {
            "snip": self.snip,
            "rewrite_tool_results": rewrite,
            "autocompact": self.autocompact,
            "reactive_compact": self.reactive_compact,
            "is_at_blocking_limit": self.is_at_blocking_limit,
        }
        if self.config.tool_use_summaries:
            deps["summarize_tool_uses"] = self.summarize_tool_uses
        return deps


__all__ = ["ContextManager", "ContextStats"]
