"""The session layer (SPEC §1): ``QueryEngine`` owns a conversation across submissions.

It keeps the history, usage and cost totals, permission denials and the JSONL transcript
(written as messages arrive), builds each submission's parameters, runs the loop and
finishes every submission with an :class:`EngineResult`.
"""

from __future__ import annotations

import math
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from nb_agent.abort import AbortController
from nb_agent.checkpoints.protocol import RunCheckpoints
from nb_agent.collector import collector_paused
from nb_agent.context.compaction import CompactionResult
from nb_agent.context.manager import ContextManager
from nb_agent.context.tokens import CHARS_PER_TOKEN
from nb_agent.context.tool_results import last_prompt_index
from nb_agent.engine_config import MAIN_QUERY_SOURCE, EngineConfig, EngineOptions, default_model
from nb_agent.errors import NbAgentError
from nb_agent.hooks.background import BackgroundHooks
from nb_agent.hooks.lifecycle import SessionHooks
from nb_agent.hooks.prompt_hook import PROMPT_HOOK_QUERY_SOURCE
from nb_agent.hooks.registry import Hooks
from nb_agent.loop.pipeline import ToolRunDeps
from nb_agent.loop.query import query
from nb_agent.loop.state import QueryDeps, QueryParams, Terminal, TerminalReason
from nb_agent.loop.token_budget import parse_token_budget
from nb_agent.memory.attachments import nested_memory_attachments
from nb_agent.messages import (
    INTERRUPT_MESSAGE,
    ApiHistory,
    ContentBlock,
    LoopEvent,
    SystemMessage,
    UserMessage,
    error_tool_result,
    messages_after_compact_boundary,
    meta_user_message,
    tool_use_ids_without_result,
    wrap_system_reminder,
)
from nb_agent.model.client import ModelRequest, ResponseAccumulator, default_transport_factory, stream_response
from nb_agent.model.model_ids import DEFAULT_MAIN_MODEL, priced_model, small_fast_model
from nb_agent.model.pricing import Usage
from nb_agent.model.prompt_cache import prompt_caching_enabled
from nb_agent.model.providers import Provider
from nb_agent.model.request_shape import RequestShape
from nb_agent.model.retry import RetryContext, stream_with_retry
from nb_agent.model.transport import ModelTransport
from nb_agent.permissions.types import CanUseTool, PermissionDenialRecord, PermissionMode, PermissionPolicy
from nb_agent.prompts import build_system_prompt
from nb_agent.session_context import SessionContext
from nb_agent.skills.invocation import UserInvocation, user_invocation
from nb_agent.skills.loader import SkillCatalog
from nb_agent.skills.tool import listing_for_tools
from nb_agent.tools.base import Tool, ToolSession, ToolUseContext
from nb_agent.tools.services import ToolServices
from nb_agent.tools.tool_pool import ToolPoolProvider
from nb_agent.tools.tool_search import tool_references_enabled
from nb_agent.transcript import REWIND_KIND, REWIND_REDO_KIND, Transcript, load_transcript, repair_transcript

DEFAULT_MODEL = DEFAULT_MAIN_MODEL
MODEL_ENV = "NB_AGENT_MODEL"

ResultSubtype = Literal[
    "success", "error_during_execution", "error_max_turns", "error_max_budget_usd", "interrupted", "prompt_blocked"
]
"""``prompt_blocked``: a UserPromptSubmit hook refused the prompt; nothing was sent."""


@dataclass(frozen=True, kw_only=True)
class EngineResult:
    """The end of one submission."""

    type: Literal["result"] = "result"
    subtype: ResultSubtype
    terminal_reason: TerminalReason | None
    is_error: bool
    text: str
    num_turns: int
    duration_s: float
    usage: Usage
    total_cost_usd: float
    session_id: str
    error: str | None = None
    permission_denials: list[PermissionDenialRecord] = field(default_factory=list)


@dataclass(kw_only=True)
class UsageTotals:
    by_model: dict[str, Usage] = field(default_factory=dict)
    provider: Provider | None = None
    """Prices are the provider's (None: the environment's)."""
    last_request: Usage = field(default_factory=Usage)
    """The most recent request's usage (its input size is the context in use)."""
    streaming: ResponseAccumulator | None = None
    """The response being streamed now: its usage joins the totals when it ends."""

    def in_flight(self) -> tuple[Usage, bool]:
        """The streamed response's usage so far (none between responses), and whether its
        output count is an estimate: the API reports output tokens at the response's end,
        until then they are the streamed text at four characters a token."""
        acc = self.streaming
        if acc is None:
            return Usage(), False
        if acc.output_reported:
            return acc.usage, False
        estimate = math.ceil(acc.streamed_chars / CHARS_PER_TOKEN)
        return replace(acc.usage, output_tokens=max(acc.usage.output_tokens, estimate)), True

    def add(self, model: str, usage: Usage) -> None:
        self.by_model[model] = self.by_model.get(model, Usage()) + usage
        self.last_request = usage

    def absorb(self, model: str, usage: Usage) -> None:
        """Usage spent on this session's behalf elsewhere (a subagent): counted in the
        totals and cost, not taken as this conversation's context size."""
        self.by_model[model] = self.by_model.get(model, Usage()) + usage

    def restore(self, entries: Iterable[Mapping[str, Any]]) -> None:
        """Take in a resumed session's ``usage`` entries, in order. A long session has
        thousands: they are summed as numbers per model (one :class:`Usage` each, not one
        per entry). A subagent's entry (it names its ``agent_id``) is absorbed."""
        by_model: dict[str, list[Mapping[str, int]]] = {}
        last: Mapping[str, int] | None = None
        for entry in entries:
            raw = entry["usage"]
            by_model.setdefault(entry["model"], []).append(raw)
            if not entry.get("agent_id"):
                last = raw
        for model, raws in by_model.items():
            names = {name for raw in raws for name in raw}
            self.absorb(model, Usage(**{name: sum(raw.get(name, 0) for raw in raws) for name in names}))
        if last is not None:
            self.last_request = Usage(**last)

    @property
    def total(self) -> Usage:
        total = Usage()
        for usage in self.by_model.values():
            total = total + usage
        return total

    @property
    def cost_usd(self) -> float:
        return sum(usage.cost_usd(model, self.provider) for model, usage in self.by_model.items())


_RESULT_SUBTYPES: dict[str, ResultSubtype] = {
    "completed": "success",
    "max_turns": "error_max_turns",
    "aborted_streaming": "interrupted",
    "aborted_tools": "interrupted",
}


_HISTORY_TYPES = frozenset({"user", "assistant", "attachment", "compact_boundary"})
"""The message kinds the session keeps as history (the rest are for the UI)."""


class QueryEngine:
    """One conversation: submit prompts, get events, keep history, usage and transcript."""

    def __init__(
        self,
        *,
        config: EngineConfig | None = None,
        tools: Sequence[Tool[Any]] = (),
        transport: ModelTransport | None = None,
        transport_factory: Callable[[], ModelTransport] | None = None,
        hooks: Hooks | None = None,
        permission_policy: PermissionPolicy | None = None,
        can_use_tool: CanUseTool | None = None,
        session_id: str | None = None,
        messages: Sequence[Any] = (),
        deps_overrides: dict[str, Any] | None = None,
        tool_pool: ToolPoolProvider | None = None,
        skills: SkillCatalog | None = None,
        checkpoints: RunCheckpoints | None = None,
    ) -> None:
        self.config = config or EngineConfig()
        self.checkpoints = checkpoints
        """Checkpoints at each run's and turn's start (files, conversation; the kernel adds
        its own parts): what ``%agent rewind`` goes back to. ``None``: none are taken."""
        self.tools: list[Tool[Any]] = list(tools)
        self.tool_pool = tool_pool
        """When set, the pool (built-ins + MCP tools, ToolSearch deferral) is rebuilt per submission."""
        self._transport = transport
        self._transport_factory = transport_factory or (lambda: default_transport_factory(self.config.provider))
        """Default: the SDK client of ``config.provider`` (re-read if it changes, see ``reset_transport``)."""
        self.hooks = hooks or Hooks()
        self.background_hooks = BackgroundHooks(self.hooks)
        self.session_hooks = SessionHooks(self)
        self.permission_policy = permission_policy or PermissionPolicy()
        self.can_use_tool = can_use_tool
        self.session_id = session_id or str(uuid.uuid4())
        self.messages: list[Any] = list(messages)
        self.usage = UsageTotals(provider=self.config.provider)
        self.permission_denials: list[PermissionDenialRecord] = []
        self.deps_overrides = deps_overrides or {}
        self.transcript = Transcript(self.transcript_path, session_id=self.session_id)
        self.tool_session = ToolSession(cwd=self.config.cwd, session_dir=self.session_dir)
        self.abort_controller: AbortController | None = None
        self.pending_notifications: list[Any] = []
        """Attachments queued while no submission ran (a background agent finished); the
        next submission takes them in, after the user's prompt."""
        self.turn_count = 0
        self.request_shape: RequestShape | None = None
        """The latest submission's request shape (a fork and a compaction build on it)."""
        self.inherited_shape: RequestShape | None = None
        """Set on a fork: its requests take this shape instead of building their own."""
        self._api_history = ApiHistory()
        self._prepend_cache: dict[str, UserMessage] = {}
        """The messages sent before the history, by text (see :meth:`_meta_reminder`)."""
        self.skills = skills
        """The skills and custom commands (``%%agent /name``, ``%agent skills``); None: none loaded."""
        # The git status (and memory imports from outside the folder) only when the caller
        # (create_engine) found the folder trusted; memory imports are held to Read's rules.
        self.session_context = SessionContext(
            cwd=self.config.cwd, git_allowed=self.config.folder_applies, read_denied=self._read_rule_for
        )
        self._owns_transport = transport is None
        self.query_source: str = self.config.options.query_source
        if self.query_source == MAIN_QUERY_SOURCE or self.hooks.model_query is None:
            self.hooks.model_query = self.hook_model_query  # prompt hooks ask through the main conversation's client
        self.context_manager = ContextManager(
            config=self.config.options.context,
            create=lambda request: self.transport.create(request),
            record=lambda kind, **payload: self.transcript.write_entry(kind, **payload),
            session_dir=lambda: self.tool_session.session_dir,
            on_usage=self._add_usage,
            retry_policy=self.config.options.retry_policy,
            on_compaction=lambda result: self.session_context.clear(),
            before_compact=self.session_hooks.before_compact,
            after_compact=self.session_hooks.after_compact,
        )
        self.context_manager.request_shape = lambda: self.request_shape  # compactions ask over the conversation's prefix

    # --- paths ---------------------------------------------------------------------------------
    @property
    def folder_trust(self) -> Any:
        """The :class:`~nb_agent.folder_trust.FolderTrust` this engine was built for (None: not decided)."""
        return self.config.folder_trust

    @property
    def transcript_path(self) -> Path:
        return self.config.sessions_dir / f"{self.session_id}.jsonl"

    @property
    def session_dir(self) -> Path:
        return self.config.sessions_dir / self.session_id

    # --- resume --------------------------------------------------------------------------------
    @classmethod
    def resume(cls, transcript_path: Path, **kwargs: Any) -> tuple[QueryEngine, list[str]]:
        """Continue a saved session; returns the engine and any warnings (torn lines)."""
        with collector_paused():  # tens of thousands of new objects, no cycles among them
            return cls._resume(transcript_path, **kwargs)

    @classmethod
    def _resume(cls, transcript_path: Path, **kwargs: Any) -> tuple[QueryEngine, list[str]]:
        loaded = load_transcript(transcript_path)
        repair_transcript(transcript_path)
        config: EngineConfig = kwargs.pop("config", None) or EngineConfig()
        if config.state_dir is None and transcript_path.parent.name == "sessions":
            config.state_dir = transcript_path.parent.parent
        history = [m for m in loaded.messages if m.type in _HISTORY_TYPES]  # as ``_append`` keeps it
        engine = cls(config=config, session_id=loaded.session_id, messages=history, **kwargs)
        engine.transcript.messages_written = loaded.message_lines
        engine.session_hooks.pending_start = "resume"
        engine.usage.restore(loaded.entries_of("usage"))
        # The kernel died between a tool_use and its result: only the last submission can
        # have one (each finished one answered its own).
        engine._answer_dangling_tool_uses(since=last_prompt_index(engine.messages))
        engine.context_manager.restore(engine.messages, loaded.entries)
        if engine.checkpoints is not None:
            engine.checkpoints.restore(engine, loaded.entries)
        for tool in engine.tools:  # what tools keep in the session (TodoWrite's list)
            tool.restore_session(engine.messages, engine.tool_session)
        return engine, loaded.warnings

    def fork(
        self,
        *,
        config: EngineConfig,
        tools: Sequence[Tool[Any]],
        transcript: Transcript,
        tool_pool: ToolPoolProvider | None = None,
        can_use_tool: CanUseTool | None = None,
    ) -> QueryEngine:
        """A subagent's engine: this one's transport, hooks, permission policy and session
        id (hooks and the tool results folder are the session's), a tool session forked
        from this one (shared resources, its own reads), and its own configuration, tools,
        approver, history, usage and ``transcript``. SessionStart is the session's: the
        child does not run it; what changed around the main agent between its turns is
        told to it, not to the child."""
        child = QueryEngine(
            config=config,
            tools=tools,
            tool_pool=tool_pool,
            transport=self.transport,
            hooks=self.hooks,
            permission_policy=self.permission_policy,
            can_use_tool=can_use_tool,
            session_id=self.session_id,
            deps_overrides={k: v for k, v in self.deps_overrides.items() if k != "between_turns"},
        )
        child.transcript = transcript
        child.tool_session = self.tool_session.fork()
        child.session_hooks.pending_start = None
        return child

    def carry_on(self, transcript_path: Path, *, can_use_tool: CanUseTool | None = None) -> tuple[QueryEngine, list[str]]:
        """The conversation saved at ``transcript_path``, continued with this engine's parts:
        configuration, tools and pool, hooks, permission policy (with its session rules),
        skills, checkpoints, the approver (``can_use_tool`` if given), the extra
        directories and the kernel bridge. Returns the new engine and the transcript's warnings."""
        engine, warnings = QueryEngine.resume(
            transcript_path,
            config=self.config,
            tools=self.tools,
            tool_pool=self.tool_pool,
            hooks=self.hooks,
            permission_policy=self.permission_policy,
            can_use_tool=can_use_tool or self.can_use_tool,
            skills=self.skills,
            checkpoints=self.checkpoints,
        )
        engine.tool_session.additional_directories = list(self.tool_session.additional_directories)
        engine.tool_session.resources.kernel = self.tool_session.resources.kernel
        return engine, warnings

    # --- model ------------------------------------------------------------------------------------
    @property
    def transport(self) -> ModelTransport:
        if self._transport is None:
            self._transport = self._transport_factory()
        return self._transport

    def call_model(self, request: ModelRequest) -> AsyncIterator[Any]:
        """Stream one request, retried per ``nb_agent.model.retry`` (529/429/5xx/drops)."""
        context = RetryContext(
            query_source=self.query_source,
            model=request.model,
            fallback_model=self.config.resolve(self.config.fallback_model) if self.config.fallback_model else None,
            refresh_credentials=self._refresh_transport,
            abort_signal=self.abort_controller.signal if self.abort_controller is not None else None,
        )
        # The retry generator is returned, not re-yielded: every layer costs per event.
        return stream_with_retry(self._stream_once, request, policy=self.context_manager.retry_policy, context=context)

    def _stream_once(self, request: ModelRequest) -> AsyncIterator[Any]:
        """One attempt; its usage is accounted when it ends (or fails)."""
        acc = ResponseAccumulator(model=request.model)
        self.usage.streaming = acc
        return stream_response(self.transport, request, accumulator=acc, on_end=lambda acc: self._account_response(acc, request.model))

    def _account_response(self, acc: ResponseAccumulator, requested_model: str) -> None:
        """A complete response's usage anchors the context-size measurement at its last message.
        It is priced as the model that answered, named by the id requested when that is the
        same model (a cloud's id says which endpoint, and so which price, served it)."""
        if self.usage.streaming is acc:  # in the totals from now on (or never, if it did not start)
            self.usage.streaming = None
        if acc.message_id:
            anchor = acc.last_uuid if acc.stop_reason else None
            model = priced_model(requested_model, acc.model)
            self.usage.add(model, acc.usage)
            self.transcript.write_entry("usage", model=model, usage=acc.usage.__dict__, anchor_uuid=anchor)
            self.context_manager.record_response(anchor, acc.usage)

    def _add_usage(self, model: str, usage: Usage) -> None:
        """Usage of a side request (compaction summary, tool-use summary)."""
        self.usage.add(model, usage)
        self.transcript.write_entry("usage", model=model, usage=usage.__dict__)

    def reset_transport(self) -> None:
        """Build the transport again for the next request (the provider or credentials changed)."""
        self._refresh_transport()

    def _refresh_transport(self) -> bool:
        """After a 401: rebuild a transport we created (re-reading credentials)."""
        if not self._owns_transport or self._transport is None:
            return False
        self._transport = None
        return True

    # --- building a submission --------------------------------------------------------------------
    def _tool_context(self, abort: AbortController) -> ToolUseContext:
        return ToolUseContext(
            abort_controller=abort,
            tools=self.tools,
            session=self.tool_session,
            model=self.config.model,
            permission_mode=self.config.permission_mode,
            messages=self.messages,
            session_id=self.session_id,
            services=self._tool_services(),
        )

    def _tool_services(self) -> ToolServices:
        cfg = self.config
        return ToolServices(
            side_query=self.side_query,
            set_permission_mode=self.set_permission_mode,
            provider=cfg.resolved_provider,
            # Grep and Glob leave out what Read may not read (the policy's Read rules).
            read_scope=getattr(self.permission_policy, "read_scope", None),
            tool_references=self._tool_references(),
            sandbox=cfg.options.sandbox,
            bash_timeout_action=cfg.options.bash_timeout_action,
            transcript_path=str(self.transcript_path),  # a subagent's is the session's: hooks get that one
            agent_id=cfg.subagent.agent_id if cfg.subagent is not None else None,
            agent_permission_mode=cfg.options.agent_permission_mode,
        )

    def user_invocation(self, prompt: str) -> UserInvocation | None:
        """What ``/name args`` becomes when it names a skill or command the user may invoke."""
        if self.skills is None:
            return None
        return user_invocation(self.skills, prompt, session_id=self.session_id, root=self.config.cwd)

    def _read_rule_for(self, path: Path) -> str | None:
        """The Read deny or ask rule covering ``path`` (memory imports are held to them)."""
        read_scope = getattr(self.permission_policy, "read_scope", None)
        if read_scope is None:
            return None
        scope = read_scope(ToolUseContext(abort_controller=AbortController(), session=self.tool_session))
        return scope.matching_rule(path, "deny") or scope.matching_rule(path, "ask")

    def _prepend_messages(self) -> list[Any]:
        """Sent before the history on every request: the memory reminder and, when the
        model can load skills, their list (both stable for the session: cached)."""
        if self.config.options.omit_session_context:
            return []
        prepend = [self._meta_reminder(self.session_context.reminder())]
        window = self.context_manager.thresholds(self.config.resolve(self.config.model)).context_window
        if listing := listing_for_tools(self.tools, context_window=window):
            prepend.append(self._meta_reminder(listing))
        self._prepend_cache = {m.content: m for m in prepend if isinstance(m.content, str)}  # only the current ones are kept
        return prepend

    def _meta_reminder(self, text: str) -> UserMessage:
        """A reminder sent before the history: the same message object while its text is
        the same, so the normalized history carries over between submissions
        (``ApiHistory`` compares messages by identity first)."""
        wrapped = wrap_system_reminder(text)
        return self._prepend_cache.get(wrapped) or meta_user_message(wrapped)

    def _tool_references(self) -> bool:
        """Whether ToolSearch loads tools by ``tool_reference`` blocks (keeps the cache)."""
        enabled = tool_references_enabled(self.config.options.tool_references, provider=self.config.resolved_provider)
        if self.tool_pool is not None:
            self.tool_pool.tool_references = enabled
        return enabled
    async def hook_model_query(self, request: dict[str, Any]) -> str:
        """A ``prompt`` hook's model call (the small fast model unless the hook names one):
        retried and counted like the session's other side calls; returns the answer's text."""
        request = {"model": small_fast_model(), **request}
        message = await self.side_query(request, query_source=PROMPT_HOOK_QUERY_SOURCE)
        return "".join(getattr(block, "text", "") for block in message.content)

    async def side_query(self, request: dict[str, Any], *, query_source: str) -> Any:
        """A tool's own non-streaming model call (WebFetch's answer, WebSearch): retried,
        its usage counted, and ended at once by Stop (the pipeline cancels the tool). The
        model is sent in the session's provider's form, as the conversation's is."""
        request = {**request, "model": self.config.resolve(request["model"])}
        return await self.context_manager.create_message(request, query_source=query_source)

    def set_permission_mode(self, mode: PermissionMode) -> None:
        """Switch the session's permission mode (plan approval, EnterPlanMode)."""
        set_mode = getattr(self.permission_policy, "set_mode", None)
        if set_mode is not None:
            set_mode(mode)
        self.config.permission_mode = mode

    def _record_denial(self, record: PermissionDenialRecord) -> None:
        self.permission_denials.append(record)
        self.transcript.write_entry("permission_denial", tool_name=record.tool_name, tool_use_id=record.tool_use_id, message=record.message)

    def _record_decision(self, tool_use_id: str, decision: str, detail: str) -> None:
        self.transcript.write_entry("permission_decision", tool_use_id=tool_use_id, decision=decision, detail=detail)

    def _turn_attachments(self, tool_use_blocks: list[Any], tool_results: list[Any]) -> list[Any]:
        """At a turn boundary (seed 002 §14): what background agents reported meanwhile
        (reaching the model now, not at the next cell) and the memory of the subfolders
        the turn's file tools read (a subfolder's CLAUDE.md, once)."""
        attachments: list[Any] = []
        queued, self.pending_notifications = self.pending_notifications, []
        attachments += queued
        if not self.config.options.omit_session_context:
            attachments += nested_memory_attachments(
                tool_use_blocks, tool_results, tools=self.tools, cwd=self.tool_session.cwd, nested_memory=self.session_context.nested_memory
            )
        return attachments

    def _query_deps(self) -> QueryDeps:
        pool_deps = {"refresh_tools": self.tool_pool.refresh} if self.tool_pool is not None else {}
        own = {"turn_attachments": self._turn_attachments}
        deps = {**self.context_manager.query_deps(self.tools), **pool_deps, **own, **self.deps_overrides}
        if self.checkpoints is not None:
            deps["between_turns"] = self._checkpoint_between_turns(deps.get("between_turns"))
        return QueryDeps(call_model=self.call_model, **deps)

    def _checkpoint_between_turns(self, after: Callable[[], Awaitable[list[Any]]] | None) -> Callable[[], Awaitable[list[Any]]]:
        """Each later turn starts with a checkpoint, then the caller's between-turn notes."""

        async def between_turns() -> list[Any]:
            assert self.checkpoints is not None
            await self.checkpoints.turn_started(self)
            return await after() if after is not None else []

        return between_turns

    def _query_params(
        self, abort: AbortController, prompt_text: str, git_status: str | None = None, invocation: UserInvocation | None = None
    ) -> QueryParams:
        cfg = self.config
        prompt_parts = cfg.system_prompt
        pool_sections = self.tool_pool.system_sections(self.tools) if self.tool_pool is not None else []
        extra_sections = [s for s in (git_status, *pool_sections) if s]
        if extra_sections:
            prompt_parts = replace(prompt_parts, dynamic_sections=[*prompt_parts.dynamic_sections, *extra_sections])
        prepend = self._prepend_messages()
        model = cfg.resolve((invocation.model if invocation is not None else None) or cfg.model)
        tool_context = self._tool_context(abort)
        if invocation is not None and invocation.restriction is not None:  # its allowed-tools narrow this run
            tool_context = replace(tool_context, services=replace(tool_context.services, active_skill=invocation.restriction))
        params = QueryParams(
            messages=list(self.messages),
            tool_use_context=tool_context,
            tool_run_deps=ToolRunDeps(
                hooks=self.hooks,
                permission_policy=self.permission_policy,
                can_use_tool=self.can_use_tool,
                on_denial=self._record_denial,
                on_decision=self._record_decision,
                background_hooks=self.background_hooks,
            ),
            system_prompt=build_system_prompt(prompt_parts, cwd=self.tool_session.cwd, model=model),
            prepend_messages=prepend,
            query_source=self.query_source,
            subagent=cfg.subagent,
            model=model,
            fallback_model=cfg.resolve(cfg.fallback_model) if cfg.fallback_model else None,
            max_turns=cfg.max_turns,
            max_output_tokens=cfg.max_output_tokens,
            thinking=cfg.thinking,
            token_budget=parse_token_budget(prompt_text),
            streaming_tool_execution=cfg.streaming_tool_execution,
            tool_definitions=self.tool_pool.tool_definitions if self.tool_pool is not None else None,
            prompt_caching=prompt_caching_enabled(cfg.options.prompt_caching),
            api_history=self._api_history,
        )
        inherited = self.inherited_shape
        if inherited is not None:  # a fork: the parent's requests exactly, so they read its cache
            params = replace(
                params,
                system_prompt=inherited.system,
                prepend_messages=inherited.prepend_messages,
                tool_definitions=inherited.tool_definitions,
                model=inherited.model,
                prompt_caching=inherited.prompt_caching,
                thinking=inherited.thinking,
            )
        self.request_shape = params.shape
        return params

    def _append(self, message: Any) -> None:
        if message.type == "tombstone":
            self.messages = [m for m in self.messages if m.uuid != message.target_uuid]
        elif message.type in _HISTORY_TYPES:
            self.messages.append(message)
        self.transcript.write_message(message)

    # --- the public API ---------------------------------------------------------------------------
    def interrupt(self, reason: str = "Interrupted by user") -> None:
        """Stop the running submission (thread-safe)."""
        if self.abort_controller is not None:
            self.abort_controller.abort(reason)

    async def submit_message(
        self,
        prompt: str | list[ContentBlock],
        *,
        attachments: Sequence[Any] = (),
        abort_controller: AbortController | None = None,
    ) -> AsyncIterator[LoopEvent | EngineResult]:
        """Run one user submission; yields loop events, then one ``EngineResult``.

        ``abort_controller``: the run's controller, when the caller owns it (a subagent's
        is a child of its parent's, so the parent's Stop stops it).
        """
        started = time.monotonic()
        cost_before = self.usage.cost_usd
        usage_before = self.usage.total
        abort = abort_controller or AbortController()
        self.abort_controller = abort
        asked = prompt if isinstance(prompt, str) else None  # as written: /name args, before the skill's text
        invocation = self.user_invocation(prompt) if isinstance(prompt, str) else None
        if invocation is not None:  # /name args: the skill's or command's text is the prompt
            prompt = invocation.prompt
        text = prompt if isinstance(prompt, str) else " ".join(b.get("text", "") for b in prompt if b.get("type") == "text")
        for event in await self.session_hooks.start_if_pending():
            yield event
        gate = await self.session_hooks.user_prompt_submit(text)
        for event in gate.events:
            yield event
        if gate.refused is not None:
            yield self._refused_result(gate.refused, started)
            return
        if self.checkpoints is not None:
            for warning in await self.checkpoints.run_started(self, asked if asked is not None else text):
                notice = SystemMessage(level="warning", content=warning)
                self._append(notice)
                yield notice
        user = UserMessage(content=prompt)
        submission_start = len(self.messages)
        self._append(user)
        yield user
        queued, self.pending_notifications = self.pending_notifications, []
        for attachment in queued:  # shown too: the user learns what reached the model
            self._append(attachment)
            yield attachment
        for attachment in [*gate.context, *attachments]:
            self._append(attachment)
        terminal: Terminal | None = None
        error: str | None = None
        last_text = ""
        self.context_manager.begin_submission()
        try:
            if self.tool_pool is not None:
                self.tools = await self.tool_pool.current()
                for level, line in self.tool_pool.take_notices():
                    notice = SystemMessage(level=level, subtype="mcp", content=line)
                    self._append(notice)
                    yield notice
            skip_git = self.config.options.omit_session_context or self.inherited_shape is not None
            git_status = None if skip_git else await self.session_context.git_status()
            params = self._query_params(abort, text, git_status, invocation)
            async for event in query(params, self._query_deps()):
                if isinstance(event, Terminal):
                    terminal = event
                    break
                if event.type in ("stream_event", "stream_request_start", "progress"):
                    yield event
                    continue
                self._append(event)
                if event.type == "assistant" and not event.is_api_error_message and event.text:
                    last_text = event.text
                yield event
                for notice in self.background_hooks.take_notices():  # e.g. a Notification hook failed
                    yield notice
                if self._over_budget(cost_before):
                    abort.abort("max budget exceeded")
        except NbAgentError as exc:
            error = str(exc)
            notice = SystemMessage(level="error", content=error)
            self._append(notice)
            yield notice
        finally:
            self.abort_controller = None
            if terminal is None:  # cancelled or failed: running tools must not outlive the run
                abort.abort(INTERRUPT_MESSAGE)
            self._answer_dangling_tool_uses(since=submission_start)
            if self.checkpoints is not None:
                self.checkpoints.run_ended(self)
        if terminal is not None:
            self.turn_count += terminal.turn_count
            error = error or terminal.error
        subtype: ResultSubtype
        if self._over_budget(cost_before):
            subtype = "error_max_budget_usd"
            spent = self.usage.cost_usd - cost_before
            error = f"Stopped: this run cost ${spent:.4f}, more than its budget of ${self.config.max_budget_usd:.4f}."
        elif terminal is None:
            subtype = "error_during_execution"
        else:
            subtype = _RESULT_SUBTYPES.get(terminal.reason, "error_during_execution")
            if subtype == "success" and terminal.error:
                subtype = "error_during_execution"
        result = EngineResult(
            subtype=subtype,
            terminal_reason=terminal.reason if terminal else None,
            is_error=subtype != "success",
            text=last_text,
            num_turns=terminal.turn_count if terminal else 0,
            duration_s=time.monotonic() - started,
            usage=self.usage.total - usage_before,
            total_cost_usd=self.usage.cost_usd - cost_before,
            session_id=self.session_id,
            error=error,
            permission_denials=list(self.permission_denials),
        )
        self.transcript.write_entry(
            "result",
            subtype=result.subtype,
            terminal_reason=result.terminal_reason,
            error=result.error,
            messages=self.transcript.messages_written,  # what a session listing shows, without reading the file
        )
        self.session_hooks.run_ended(result.duration_s, result.subtype)
        yield result

    def _refused_result(self, reason: str, started: float) -> EngineResult:
        """A UserPromptSubmit hook refused the prompt: nothing was sent or recorded."""
        self.transcript.write_entry("prompt_blocked", reason=reason)
        return EngineResult(
            subtype="prompt_blocked",
            terminal_reason=None,
            is_error=False,
            text="",
            num_turns=0,
            duration_s=time.monotonic() - started,
            usage=Usage(),
            total_cost_usd=0.0,
            session_id=self.session_id,
            error=None,
            permission_denials=list(self.permission_denials),
        )

    def _over_budget(self, cost_before: float) -> bool:
        """This submission spent more than ``max_budget_usd`` (a per-run budget, as Claude Code's)."""
        limit = self.config.max_budget_usd
        return limit is not None and self.usage.cost_usd - cost_before > limit

    def _answer_dangling_tool_uses(self, since: int = 0) -> None:
        """Last line of defence for the invariant: no tool_use is left without a result.
        ``since``: where this submission's messages start (earlier ones were answered then)."""
        start = since if 0 <= since <= len(self.messages) else 0
        for block in tool_use_ids_without_result(self.messages[start:]):
            self._append(error_tool_result(block["id"], "Error: the run ended before this tool call completed"))

    def new_conversation(self) -> None:
        """Forget the history (a new session id and transcript; totals are kept)."""
        self.transcript.close()
        self.session_id = str(uuid.uuid4())
        self.messages = []
        self.session_context.clear()
        self.context_manager.reset()
        if self.tool_pool is not None:
            self.tool_pool.forget_history()
        self._api_history = ApiHistory()
        self._prepend_cache = {}
        self.transcript = Transcript(self.transcript_path, session_id=self.session_id)
        self.tool_session.session_dir = self.session_dir
        self.tool_session.read_file_state.clear()  # the new conversation has read nothing
        self.session_hooks.pending_start = "clear"
        if self.checkpoints is not None:
            self.checkpoints.reset(self)

    async def start_new_conversation(self) -> list[Any]:
        """``%agent new``: SessionEnd (reason ``clear``) for this conversation, a new one,
        and SessionStart (source ``clear``) for it. Returns the hooks' notices."""
        events = await self.session_hooks.end("clear")
        self.new_conversation()
        return events + await self.session_hooks.start_if_pending()

    async def end_session(self, reason: str = "other", *, timeout_cap: float | None = None) -> list[Any]:
        """Run SessionEnd hooks (once per started session), each bounded by its timeout and
        by ``timeout_cap``. Returns their notices."""
        return await self.session_hooks.end(reason, timeout_cap=timeout_cap)

    def rewind_conversation(self, to_uuid: str | None) -> list[Any]:
        """Cut the conversation back to just after message ``to_uuid`` (``None``: to the
        start); returns the messages taken out. The transcript keeps every message and
        records the cut, so a resumed session gets the rewound conversation."""
        keep = 0 if to_uuid is None else next((i + 1 for i, m in enumerate(self.messages) if m.uuid == to_uuid), None)
        if keep is None:
            raise NbAgentError(f"message {to_uuid} is not in this conversation")
        removed = self.messages[keep:]
        self.messages = self.messages[:keep]
        self.transcript.write_entry(REWIND_KIND, to_uuid=to_uuid, removed=len(removed))
        self._conversation_changed()
        return removed

    def restore_messages(self, messages: Sequence[Any]) -> None:
        """Put back messages a rewind took out (a redo), at the end of the conversation."""
        self.messages.extend(messages)
        self.transcript.write_entry(REWIND_REDO_KIND, uuids=[m.uuid for m in messages])
        self._conversation_changed()

    def _conversation_changed(self) -> None:
        """After a cut or a redo: what tools keep per conversation follows it (TodoWrite's
        list); what the model has read is forgotten (it must read files again)."""
        self.tool_session.read_file_state.clear()
        for tool in self.tools:
            tool.restore_session(self.messages, self.tool_session)

    async def compact(self, instructions: str | None = None) -> CompactionResult:
        """Summarize the conversation now (``%agent compact``): the history continues after a
        compact boundary. Raises ``CompactionError`` (history untouched) if it fails."""
        window = messages_after_compact_boundary(self.messages)
        result = await self.context_manager.compact(
            window, model=self.config.resolve(self.config.model), trigger="manual", instructions=instructions, tools=self.tools
        )
        self._append(result.boundary)
        for message in result.extra_messages:
            self._append(message)
        return result

    async def aclose(self) -> None:
        """Close the transcript, MCP servers and background shells of this session."""
        self.close()
        if self.tool_pool is not None:
            await self.tool_pool.aclose()
        shells = self.tool_session.resources.background_shells
        if shells is not None:
            await shells.kill_all()

    def close(self) -> None:
        self.transcript.close()


async def ask(prompt: str, **engine_kwargs: Any) -> EngineResult:
    """One-shot: run ``prompt`` in a fresh engine and return its result."""
    engine = QueryEngine(**engine_kwargs)
    result: EngineResult | None = None
    try:
        async for event in engine.submit_message(prompt):
            if isinstance(event, EngineResult):
                result = event
    finally:
        engine.close()
    assert result is not None
    return result


__all__ = [
    "DEFAULT_MODEL",
    "EngineConfig",
    "EngineOptions",
    "EngineResult",
    "QueryEngine",
    "UsageTotals",
    "ask",
    "default_model",
]
