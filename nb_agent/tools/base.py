"""The Tool contract (SPEC §3): fail-closed defaults, pydantic input models.

A tool subclasses :class:`Tool` with a pydantic ``input_model`` and an async ``call``.
Safety flags take the validated *input* (``ls`` is read-only, ``rm`` is not) and default
to the safe answer: not read-only, not concurrency-safe, interrupt behaviour ``block``.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Literal, TypeVar

from pydantic import BaseModel

from nb_agent.abort import AbortController
from nb_agent.messages import ContentBlock
from nb_agent.permissions.types import PermissionAllow, PermissionDecision, PermissionMode
from nb_agent.tools.file_state_cache import FileStateCache
from nb_agent.tools.services import SessionResources, ToolServices

if TYPE_CHECKING:
    from nb_agent.tools.files.change_preview import ChangePreview

InputT = TypeVar("InputT", bound=BaseModel)

DEFAULT_MAX_RESULT_SIZE_CHARS = 50_000
"""Global cap on a tool result kept in context (Claude Code's value); larger results are persisted (SPEC §3)."""

InterruptBehavior = Literal["cancel", "block"]


@dataclass(kw_only=True)
class FileState:
    """What a Read saw of a file, so Edit/Write can refuse stale or unread files."""

    content: str
    timestamp: float
    offset: int | None = None
    limit: int | None = None
    is_partial_view: bool = False


@dataclass(kw_only=True)
class ToolSession:
    """Mutable state that outlives one tool call: cwd, file-state cache, scratch dirs.

    Shared by reference between calls of one session (Bash's ``cd`` persists).
    """

    cwd: Path = field(default_factory=Path.cwd)
    read_file_state: FileStateCache = field(default_factory=FileStateCache)
    """What the conversation has read (an LRU of at most 25 MB); emptied by a new conversation."""
    session_dir: Path | None = None
    """Where this session keeps tool results, background output and the like."""
    additional_directories: list[Path] = field(default_factory=list)
    resources: SessionResources = field(default_factory=SessionResources)
    """What every agent of the session shares (background shells, subagents, locks, …)."""

    def fork(self) -> ToolSession:
        """A subagent's tool session: the same folder, resources and directories; its own
        copy of what was read (its reads do not vouch for the parent's Edit)."""
        return ToolSession(
            cwd=self.cwd,
            read_file_state=self.read_file_state.clone(),
            session_dir=self.session_dir,
            additional_directories=list(self.additional_directories),
            resources=self.resources,
        )


@dataclass(frozen=True, kw_only=True)
class ToolUseContext:
    """Everything a tool call may use. Frozen: a ``context_modifier`` returns a new one."""

    abort_controller: AbortController
    tools: Sequence[Tool[Any]] = ()
    session: ToolSession = field(default_factory=ToolSession)
    model: str = ""
    permission_mode: PermissionMode = "default"
    messages: Sequence[Any] = ()
    session_id: str = ""
    query_source: str = "repl_main_thread"
    services: ToolServices = field(default_factory=ToolServices)
    """What the run offers the call beyond this context (side model call, sandbox, …)."""
    tool_use_id: str | None = None
    """The id of the tool_use being run (set by the pipeline for the call it makes)."""

    @property
    def abort_signal(self):  # AbortSignal; kept short for tool authors
        return self.abort_controller.signal

    @property
    def cwd(self) -> Path:
        return self.session.cwd

    def with_abort(self, controller: AbortController) -> ToolUseContext:
        return replace(self, abort_controller=controller)


ContextModifier = Callable[[ToolUseContext], ToolUseContext]
ProgressCallback = Callable[[dict[str, Any]], None]


@dataclass(frozen=True, kw_only=True)
class ToolResult:
    """What ``Tool.call`` returns.

    ``data`` is the tool's output, turned into the tool_result content by
    ``map_result_to_block``. ``new_messages`` are appended after the result;
    ``context_modifier`` applies only to non-concurrency-safe tools (SPEC §3).
    """

    data: Any
    is_error: bool = False
    new_messages: list[Any] = field(default_factory=list)
    context_modifier: ContextModifier | None = None


@dataclass(frozen=True, kw_only=True)
class ValidationResult:
    ok: bool
    message: str = ""

    @classmethod
    def passed(cls) -> ValidationResult:
        return cls(ok=True)

    @classmethod
    def failed(cls, message: str) -> ValidationResult:
        return cls(ok=False, message=message)


class Tool(ABC, Generic[InputT]):
    """Base class of every tool. Override what differs; the defaults fail closed."""

    name: ClassVar[str]
    input_model: ClassVar[type[BaseModel]]
    aliases: ClassVar[tuple[str, ...]] = ()
    search_hint: ClassVar[str | None] = None
    should_defer: ClassVar[bool] = False
    max_result_size_chars: ClassVar[float] = DEFAULT_MAX_RESULT_SIZE_CHARS
    is_mcp: ClassVar[bool] = False
    permission_family: ClassVar[str | None] = None
    """``"file_edit"`` / ``"file_read"`` puts a tool under ``Edit(...)`` / ``Read(...)`` rules."""
    requires_user_interaction: ClassVar[bool] = False
    """The tool needs the user's UI (a question, a plan to approve): its *ask* is never
    skipped by a mode, and a background subagent, which nobody watches, never gets it."""
    shared_resource: ClassVar[str | None] = None
    """A resource every agent of the session shares (``"kernel"``): calls naming the same
    resource run one at a time across agents, while other tools run side by side."""
    reaches_network: ClassVar[bool] = False
    """Read-only, but it talks to other hosts: being read-only does not allow it without
    the user's (or a rule's) consent."""
    repeats_its_content: ClassVar[bool] = False
    """The structured output (``ToolResult.data``) holds nothing the tool_result's content
    does not (Read's file text, Grep's matches): it is not kept with the result, so each
    result is held and stored once. See :meth:`structured_output`."""

    # --- description -----------------------------------------------------------------
    @abstractmethod
    def prompt(self) -> str:
        """The description sent to the model in the tool definition."""

    def user_facing_name(self, input: InputT | None = None) -> str:
        return self.name

    def input_json_schema(self) -> dict[str, Any]:
        schema = self.input_model.model_json_schema()
        schema.pop("title", None)
        return schema

    def to_api_definition(self) -> dict[str, Any]:
        """The definition the model is sent: name, description (:meth:`prompt`), input schema.

        Memoised per tool: the schema is built once (a pydantic JSON schema takes
        milliseconds, and requests send their tools again and again); the definition is
        made again only when the name or the description changed. The same dict is returned
        each time: do not change it."""
        name, description = self.name, self.prompt()
        memos = vars(self)  # pyright reads ``self.__dict__`` here as a read-only mapping
        memo = memos.get("_definition_memo")
        if memo is not None and memo["name"] == name and memo["description"] == description:
            return memo
        schema = memos.get("_schema_memo")
        if schema is None:
            schema = memos["_schema_memo"] = self.input_json_schema()
        memo = memos["_definition_memo"] = {"name": name, "description": description, "input_schema": schema}
        return memo

    def deferred_definition(self) -> dict[str, Any]:
        """:meth:`to_api_definition` marked ``defer_loading`` (memoised alike)."""
        base = self.to_api_definition()
        memos = vars(self)
        memo = memos.get("_deferred_memo")
        if memo is None or memo[0] is not base:
            memo = memos["_deferred_memo"] = (base, {**base, "defer_loading": True})
        return memo[1]

    # --- behaviour flags (take the validated input) ------------------------------------
    def is_enabled(self) -> bool:
        return self.unavailable_reason() is None

    def unavailable_reason(self) -> str | None:
        """Why the tool is not offered in this environment (``%agent tools`` says it), or None."""
        return None

    def restore_session(self, messages: Sequence[Any], session: ToolSession) -> None:
        """Rebuild what the tool keeps in ``session`` from a resumed conversation's
        ``messages`` (TodoWrite: its list). Default: nothing."""
        return None

    def is_read_only(self, input: InputT) -> bool:
        return False

    def is_concurrency_safe(self, input: InputT) -> bool:
        return False

    def is_destructive(self, input: InputT) -> bool:
        return False

    def interrupt_behavior(self) -> InterruptBehavior:
        return "block"

    def structured_output(self, data: Any) -> Any:
        """What of ``data`` (the call's output, already mapped to the tool_result content)
        stays with the result as ``UserMessage.tool_use_result``: what UIs read as it
        arrives, what :meth:`restore_session` reads on resume, what the transcript keeps.
        Default: all of it, or nothing when :attr:`repeats_its_content`. Override to keep
        what the content lacks without repeating what it holds (Bash: the exit code, not
        the output). A result too large for the context keeps none either way: the model
        saw a preview, and the file it names holds the rest."""
        return None if self.repeats_its_content else data

    # --- pipeline hooks -----------------------------------------------------------------
    def parse_input(self, raw: dict[str, Any]) -> InputT:
        """Schema validation; raises ``pydantic.ValidationError``."""
        return self.input_model.model_validate(raw)  # type: ignore[return-value]

    async def validate_input(self, input: InputT, ctx: ToolUseContext) -> ValidationResult:
        return ValidationResult.passed()

    async def check_permissions(self, input: InputT, ctx: ToolUseContext) -> PermissionDecision:
        """Tool-specific permission logic; the general rule engine still applies after."""
        return PermissionAllow()

    def auto_allow_reason(self, input: InputT, ctx: ToolUseContext) -> str | None:
        """Why this call may run without asking although it is not read-only (Bash: it will
        run sandboxed and ``autoAllowBashIfSandboxed`` is on), or None. Deny and ask rules
        and plan mode still come first."""
        return None

    def permission_rule_content(self, input: InputT) -> str | None:
        """What a rule like ``Tool(content)`` matches for this input (path, command)."""
        return None

    def targets_local_file(self, input: InputT) -> bool:
        """Whether the path this call names is a file on this machine. Only then do the
        path checks apply (a protected file, outside the working directories); a call that
        reaches a document elsewhere (the notebook open in the user's browser, through its
        page, whatever files exist here) says False, and modes and rules still apply to it."""
        return True

    async def change_preview(self, input: InputT, ctx: ToolUseContext) -> ChangePreview | None:
        """What the call would change (a file's diff, a cell before and after), worked out
        without changing anything, for the approval card; None when the tool changes no
        file or notebook. May raise ``ToolError``/``OSError`` (the card then shows none)."""
        return None

    @abstractmethod
    async def call(self, input: InputT, ctx: ToolUseContext, on_progress: ProgressCallback) -> ToolResult:
        """Run the tool. Raise ``ToolError`` for an error the model should read."""

    def map_result_to_block(self, data: Any, tool_use_id: str) -> str | list[ContentBlock]:
        """The tool_result ``content`` for ``data`` (text by default)."""
        if isinstance(data, str):
            return data
        if isinstance(data, list) and all(isinstance(b, dict) and "type" in b for b in data):
            return data
        if isinstance(data, BaseModel):
            return data.model_dump_json()
        return json.dumps(data, default=str)


def find_tool(tools: Sequence[Tool[Any]], name: str) -> Tool[Any] | None:
    """Look a tool up by name or alias."""
    for tool in tools:
        if tool.name == name:
            return tool
    for tool in tools:
        if name in tool.aliases:
            return tool
    return None


ToolCallable = Callable[..., Awaitable[Any]]
