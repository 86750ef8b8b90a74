"""``McpTool``: one tool of an MCP server, exposed to the model as ``mcp__<server>__<tool>``.

The server's JSON Schema is the input schema (sent as is, validated before the call with
``jsonschema``). Annotations map to the safety flags and fail closed: only
``readOnlyHint: true`` makes a tool read-only and concurrency-safe; a tool is destructive
when ``destructiveHint`` is true or, as the MCP spec defaults, when it is unannotated and
not read-only.

Permissions come from the session's policy (the base ``check_permissions`` allows): every
MCP tool is asked about, ``readOnlyHint`` or not (the hint is the server's own claim),
unless a rule (``mcp__server``, ``mcp__server__tool``) allows it.
"""

from __future__ import annotations

import asyncio
from functools import cached_property
from typing import Any, ClassVar, Protocol

import mcp_types as mt
from pydantic import BaseModel, ConfigDict

from nb_agent.errors import AbortError, InputValidationError, ToolError
from nb_agent.mcp.config import normalize_name_for_mcp
from nb_agent.mcp.results import McpToolOutput, convert_call_result
from nb_agent.mcp.state import DEFAULT_MAX_OUTPUT_TOKENS, describe_exception
from nb_agent.messages import ContentBlock
from nb_agent.tools.base import DEFAULT_MAX_RESULT_SIZE_CHARS, ProgressCallback, Tool, ToolResult, ToolUseContext

MCP_TOOL_PREFIX = "mcp__"
MAX_DESCRIPTION_CHARS = 2_048
"""Claude Code's cap on an MCP tool description (some servers ship pages of text)."""
SEARCH_HINT_META_KEY = "anthropic/searchHint"
ALWAYS_LOAD_META_KEY = "anthropic/alwaysLoad"


def mcp_tool_name(server: str, tool: str) -> str:
    """The name the model sees: ``mcp__<server>__<tool>``."""
    return f"{MCP_TOOL_PREFIX}{normalize_name_for_mcp(server)}__{normalize_name_for_mcp(tool)}"


class McpToolInput(BaseModel):
    """Validated MCP arguments; the server's schema did the checking, so any keys are kept."""

    model_config = ConfigDict(extra="allow")

    def arguments(self) -> dict[str, Any]:
        return self.model_dump()


class McpToolCaller(Protocol):
    """What an ``McpTool`` calls through (``McpManager``): routes by server name, so a tool
    object keeps working after its server reconnects."""

    async def call_mcp_tool(self, server: str, tool: str, arguments: dict[str, Any]) -> mt.CallToolResult: ...


class McpTool(Tool[McpToolInput]):
    """A tool of a connected MCP server (built by ``McpManager`` from ``tools/list``)."""

    input_model: ClassVar[type[BaseModel]] = McpToolInput
    repeats_its_content: ClassVar[bool] = True  # the structured output is its text again: kept once
    is_mcp: ClassVar[bool] = True
    max_result_size_chars: ClassVar[float] = DEFAULT_MAX_RESULT_SIZE_CHARS

    def __init__(
        self,
        *,
        server_name: str,
        definition: mt.Tool,
        caller: McpToolCaller,
        max_output_tokens: int = DEFAULT_MAX_OUTPUT_TOKENS,
        name: str | None = None,
    ) -> None:
        self.server_name = server_name
        self.mcp_server_key = normalize_name_for_mcp(server_name)
        """The server part of the tool's name: what ``mcp__<server>`` rules match, exactly."""
        self.definition = definition
        self.caller = caller
        self.max_output_tokens = max_output_tokens
        # Per-instance values for what the base class declares per class.
        self.name = name or mcp_tool_name(server_name, definition.name)  # type: ignore[misc]
        meta = definition.meta or {}
        hint = meta.get(SEARCH_HINT_META_KEY)
        self.search_hint = hint if isinstance(hint, str) else None  # type: ignore[misc]
        self.always_load = meta.get(ALWAYS_LOAD_META_KEY) is True
        """Server asked (``_meta["anthropic/alwaysLoad"]``) never to defer this tool."""

    def __repr__(self) -> str:
        return f"McpTool({self.name!r})"

    # --- description ---------------------------------------------------------------------
    @property
    def tool_name(self) -> str:
        """The tool's name on its server (unprefixed)."""
        return self.definition.name

    @property
    def title(self) -> str | None:
        annotations = self.definition.annotations
        return self.definition.title or (annotations.title if annotations else None)

    def prompt(self) -> str:
        text = (self.definition.description or "").strip()
        if len(text) > MAX_DESCRIPTION_CHARS:
            text = text[: MAX_DESCRIPTION_CHARS - 1].rstrip() + "…"
        return text or f"Tool {self.tool_name} of the {self.server_name} MCP server."

    def user_facing_name(self, input: McpToolInput | None = None) -> str:
        return f"{self.server_name} - {self.title or self.tool_name} (MCP)"

    def input_json_schema(self) -> dict[str, Any]:
        schema = dict(self.definition.input_schema or {})
        schema.setdefault("type", "object")  # the API requires an object schema
        return schema

    # --- flags ---------------------------------------------------------------------------
    @property
    def annotations(self) -> mt.ToolAnnotations | None:
        return self.definition.annotations

    def is_read_only(self, input: McpToolInput | None = None) -> bool:
        return bool(self.annotations and self.annotations.read_only_hint is True)

    def is_concurrency_safe(self, input: McpToolInput | None = None) -> bool:
        return self.is_read_only(input)

    def is_destructive(self, input: McpToolInput | None = None) -> bool:
        if self.is_read_only(input):
            return False
        hint = self.annotations.destructive_hint if self.annotations else None
        return hint is not False  # MCP default: destructive unless said otherwise

    # --- pipeline ------------------------------------------------------------------------
    @cached_property
    def _validator(self) -> Any:
        import jsonschema
        from jsonschema.validators import validator_for

        schema = self.input_json_schema()
        try:
            cls = validator_for(schema, default=jsonschema.Draft202012Validator)
            cls.check_schema(schema)
        except jsonschema.SchemaError:
            return None  # a broken schema is the server's problem: let it validate
        return cls(schema)

    def parse_input(self, raw: dict[str, Any]) -> McpToolInput:
        """Validate ``raw`` against the server's JSON Schema; raises ``InputValidationError``."""
        if not isinstance(raw, dict):
            raise InputValidationError(f"{self.name}: input must be an object, got {type(raw).__name__}")
        validator = self._validator
        if validator is not None:
            try:
                errors = sorted(validator.iter_errors(raw), key=lambda e: [str(p) for p in e.absolute_path])
            except Exception:  # noqa: BLE001 - e.g. an unresolvable $ref: the server validates
                errors = []
            if errors:
                raise InputValidationError(format_schema_errors(self.name, errors))
        return McpToolInput.model_validate(raw)

    async def call(self, input: McpToolInput, ctx: ToolUseContext, on_progress: ProgressCallback) -> ToolResult:
        arguments = input.arguments() if isinstance(input, McpToolInput) else dict(input)
        call = asyncio.ensure_future(self.caller.call_mcp_tool(self.server_name, self.tool_name, arguments))
        abort = asyncio.ensure_future(ctx.abort_signal.wait())
        try:
            await asyncio.wait({call, abort}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            if not call.done():
                call.cancel()
            abort.cancel()
        if not call.done() or call.cancelled():
            # Let the cancelled request unwind (the SDK tells the server it was cancelled).
            await asyncio.gather(call, return_exceptions=True)
            raise AbortError(ctx.abort_signal.reason or "Interrupted by user")
        output = convert_call_result(call.result(), max_output_tokens=self.max_output_tokens)
        return ToolResult(data=output, is_error=output.is_error)

    def map_result_to_block(self, data: Any, tool_use_id: str) -> str | list[ContentBlock]:
        if isinstance(data, McpToolOutput):
            return data.to_result_content()
        return super().map_result_to_block(data, tool_use_id)


def format_schema_errors(tool_name: str, errors: list[Any], *, limit: int = 8) -> str:
    """Readable ``jsonschema`` errors: one line per problem, with the path of the value."""
    lines = [f"Invalid input for {tool_name}:"]
    for error in errors[:limit]:
        path = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path).lstrip(".")
        lines.append(f"- {path or '(root)'}: {error.message}")
    if len(errors) > limit:
        lines.append(f"- … and {len(errors) - limit} more")
    return "\n".join(lines)


def call_failure(server: str, tool: str, exc: BaseException) -> ToolError:
    """The ``ToolError`` the model reads for a failed call (``McpManager`` raises it)."""
    from nb_agent.mcp.connection import McpConnectionError

    if isinstance(exc, McpConnectionError):
        return ToolError(f"{exc}. The tool call did not complete; the server will be reconnected before the next turn.")
    return ToolError(f"MCP server {server!r} failed to run {tool}: {describe_exception(exc)}")
