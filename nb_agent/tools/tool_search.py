"""ToolSearch (SPEC §7): keep big tool sets out of the request until the model asks for them.

Modes (env ``NB_AGENT_TOOL_SEARCH`` or the ``mode`` argument):

- ``auto`` (default; the seed's ``tst-auto``): defer MCP tools (and built-ins marked
  ``should_defer``) when their definitions would take ≥ 10 % of the context window
  (estimated as ``len(json) / 4`` tokens);
- ``on`` (``tst``): always defer them; ``off`` (``standard``): never.

While tools are deferred, the request carries the non-deferred tools, the ones the model
has discovered, and the ``ToolSearch`` tool. ToolSearch answers ``select:A,B`` (exact
names), ``mcp__server`` (a server's tools, optionally followed by keywords) or keywords
(``+word`` required), ranked by :mod:`nb_agent.tools.search_index`. Its result lists the
matching names one per line (``- name: description``); :func:`discovered_tool_names`
re-derives the discovered set from those results in the history on every request, so
resume and compaction keep it. A compaction that summarises the results away should keep
an ``AttachmentMessage(kind="discovered_tools", content="name1, name2")`` (see
:func:`discovered_tools_attachment`), which is read too.

Two ways to load what was found (``tool_references``, see :func:`tool_references_enabled`):

- ``tool_reference`` blocks (the seed's mechanism, the default on Anthropic's API and
  Foundry): ToolSearch's result is one ``tool_reference`` block per tool found, which the
  API expands in place; a referenced tool must be among the request's ``tools``, marked
  ``defer_loading: true`` (the API keeps such definitions out of the prompt and its cached
  prefix). Since ToolSearch searches here, not on the API's side, only the tools found so
  far are sent so: a discovery adds a deferred definition, which leaves the cached prefix
  intact, and a catalog of thousands of tools costs nothing on the wire until used.
- text (Bedrock, Vertex, or ``NB_AGENT_TOOL_REFERENCES=0``, for endpoints without tool
  search): the result lists the names, and the discovered tools' definitions join the
  ``tools`` of the next requests, which invalidates the cached prefix at each discovery.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, Field

from nb_agent.messages import AttachmentMessage, starts_with
from nb_agent.tools.base import ProgressCallback, Tool, ToolResult, ToolUseContext
from nb_agent.tools.search_index import ToolSearchIndex
from nb_agent.wording import plural

ToolSearchMode = Literal["auto", "on", "off"]

TOOL_SEARCH_NAME = "ToolSearch"
TOOL_SEARCH_ENV = "NB_AGENT_TOOL_SEARCH"
DEFAULT_CONTEXT_WINDOW = 200_000
AUTO_THRESHOLD_FRACTION = 0.10
CHARS_PER_TOKEN = 4
DISCOVERED_TOOLS_KIND = "discovered_tools"
TOOL_REFERENCES_ENV = "NB_AGENT_TOOL_REFERENCES"
MAX_SELECT_NAMES = 50

_MODE_ALIASES: dict[str, ToolSearchMode] = {
    "auto": "auto", "tst-auto": "auto", "": "auto",
    "on": "on", "tst": "on", "true": "on", "1": "on", "always": "on", "yes": "on",
    "off": "off", "standard": "off", "false": "off", "0": "off", "never": "off", "no": "off",
}
_RESULT_LINE = re.compile(r"^- ([A-Za-z0-9_-]{1,128}):", re.MULTILINE)


def resolve_mode(mode: str | None = None) -> ToolSearchMode:
    """The mode from the argument, else ``NB_AGENT_TOOL_SEARCH``, else ``auto``."""
    raw = mode if mode is not None else os.environ.get(TOOL_SEARCH_ENV, "auto")
    return _MODE_ALIASES.get(raw.strip().lower(), "auto")


def estimate_tools_tokens(tools: Iterable[Tool[Any]]) -> int:
    """Rough token cost of tool definitions in a request: ``len(json) / 4``."""
    definitions = [t.to_api_definition() for t in tools]
    return len(json.dumps(definitions, ensure_ascii=False)) // CHARS_PER_TOKEN if definitions else 0


def _tokens_reach(tools: Sequence[Tool[Any]], limit: float) -> bool:
    """``estimate_tools_tokens(tools) >= limit``, reading definitions only until it is
    (a catalog of thousands is over the limit after a few dozen)."""
    chars = 0  # "[" and "]" make up for the ", " the first definition does not have
    for tool in tools:
        chars += len(json.dumps(tool.to_api_definition(), ensure_ascii=False)) + 2
        if chars // CHARS_PER_TOKEN >= limit:
            return True
    return False


def is_deferrable(tool: Tool[Any]) -> bool:
    """MCP tools (unless the server asked ``alwaysLoad``) and built-ins marked ``should_defer``."""
    if tool.name == TOOL_SEARCH_NAME:
        return False
    if tool.is_mcp:
        return not getattr(tool, "always_load", False)
    return bool(tool.should_defer)


def deferred_tools(
    pool: Sequence[Tool[Any]],
    mode: str | None = None,
    context_window: int = DEFAULT_CONTEXT_WINDOW,
) -> list[Tool[Any]]:
    """The tools kept out of requests (until discovered); empty when deferral is off.

    Also empty when the pool has no ``ToolSearch`` tool: nothing could load deferred tools,
    so everything is sent (put ``ToolSearchTool()`` among the built-ins).
    """
    resolved = resolve_mode(mode)
    if resolved == "off" or not any(t.name == TOOL_SEARCH_NAME for t in pool):
        return []
    candidates = [t for t in pool if is_deferrable(t)]
    if not candidates:
        return []
    if resolved == "auto" and not _tokens_reach(candidates, AUTO_THRESHOLD_FRACTION * context_window):
        return []
    return candidates


# --- discovery, re-derived from the history -------------------------------------------------


def _blocks(content: Any) -> list[dict[str, Any]]:
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def _message_parts(message: Any) -> tuple[str, Any, Any]:
    """(kind, content, tool_use_result) for a runtime message or an API-shaped dict."""
    if isinstance(message, dict):
        role = message.get("role") or message.get("type") or ""
        return role, message.get("content"), message.get("tool_use_result")
    return getattr(message, "type", ""), getattr(message, "content", None), getattr(message, "tool_use_result", None)


def _names_in_result(block: dict[str, Any]) -> set[str]:
    names: set[str] = set()
    content = block.get("content")
    texts = [content] if isinstance(content, str) else []
    for part in _blocks(content):
        if part.get("type") == "text":
            texts.append(part.get("text", ""))
        elif part.get("type") == "tool_reference" and isinstance(part.get("tool_name"), str):
            names.add(part["tool_name"])
    for text in texts:
        names.update(_RESULT_LINE.findall(text))
    return names


def _names_in_structured(data: Any) -> set[str]:
    matches = data.get("matches") if isinstance(data, dict) else getattr(data, "matches", None)
    return {m for m in matches if isinstance(m, str)} if isinstance(matches, list) else set()


def discovered_tool_names(messages: Iterable[Any]) -> set[str]:
    """Names loaded through ToolSearch so far, read from the history (never cached).

    Looks at the results of assistant ``tool_use`` blocks named ``ToolSearch`` (their
    ``- name:`` lines, ``tool_reference`` blocks, or the structured ``matches``), skipping
    error results, plus ``AttachmentMessage(kind="discovered_tools")`` lists.
    """
    messages = list(messages)
    search_ids: set[str] = set()
    for message in messages:
        kind, content, _ = _message_parts(message)
        if kind == "assistant":
            for block in _blocks(content):
                if block.get("type") == "tool_use" and block.get("name") == TOOL_SEARCH_NAME:
                    search_ids.add(block.get("id", ""))
    names: set[str] = set()
    for message in messages:
        kind, content, structured = _message_parts(message)
        if kind == "attachment" and getattr(message, "kind", None) == DISCOVERED_TOOLS_KIND:
            names.update(n for n in re.split(r"[\s,]+", str(content)) if n)
            continue
        if kind != "user" or not search_ids:
            continue
        results = [
            b
            for b in _blocks(content)
            if b.get("type") == "tool_result" and b.get("tool_use_id") in search_ids and not b.get("is_error")
        ]
        for block in results:
            names |= _names_in_result(block)
        if results and structured is not None:
            names |= _names_in_structured(structured)
    return names


class DiscoveredTools:
    """:func:`discovered_tool_names` for a window that grows between calls (the loop's, turn
    after turn): only the messages added since the last call are read; any other change
    (a compaction, a rewind) reads the window again."""

    def __init__(self) -> None:
        self.read = 0
        """Messages read in total (tests check that a call reads only what is new)."""
        self._reset()

    def _reset(self) -> None:
        self._seen: list[Any] = []
        self._search_ids: set[str] = set()
        self._use_ids: set[str] = set()
        self._early: dict[str, list[tuple[dict[str, Any], Any]]] = {}
        """Results that came before their tool_use, by its id (a ToolSearch call may claim them)."""
        self._names: set[str] = set()
        self._frozen: frozenset[str] = frozenset()

    def names(self, messages: list[Any]) -> frozenset[str]:
        """The names discovered in ``messages`` (the same as ``discovered_tool_names``)."""
        if not starts_with(messages, self._seen):
            self._reset()
        for message in messages[len(self._seen) :]:
            self._read_message(message)
            self.read += 1
        self._seen = list(messages)  # a copy: the caller's list may change in place
        if len(self._frozen) != len(self._names):
            self._frozen = frozenset(self._names)
        return self._frozen

    def _read_message(self, message: Any) -> None:
        kind, content, structured = _message_parts(message)
        if kind == "attachment" and getattr(message, "kind", None) == DISCOVERED_TOOLS_KIND:
            self._names.update(n for n in re.split(r"[\s,]+", str(content)) if n)
        elif kind == "assistant":
            for block in _blocks(content):
                if block.get("type") == "tool_use":
                    self._tool_use(block)
        elif kind == "user":
            matched = False
            for block in _blocks(content):
                if block.get("type") != "tool_result" or block.get("is_error"):
                    continue
                tool_use_id = block.get("tool_use_id")
                if tool_use_id in self._search_ids:
                    self._names |= _names_in_result(block)
                    matched = True
                elif tool_use_id not in self._use_ids:
                    self._early.setdefault(str(tool_use_id), []).append((block, structured))
            if matched and structured is not None:
                self._names |= _names_in_structured(structured)

    def _tool_use(self, block: dict[str, Any]) -> None:
        tool_use_id = block.get("id", "")
        self._use_ids.add(tool_use_id)
        early = self._early.pop(tool_use_id, [])
        if block.get("name") != TOOL_SEARCH_NAME:
            return
        self._search_ids.add(tool_use_id)
        for result, structured in early:
            self._names |= _names_in_result(result)
            if structured is not None:
                self._names |= _names_in_structured(structured)


def discovered_tools_attachment(names: Iterable[str]) -> AttachmentMessage:
    """What a compaction should keep so discovered tools stay loaded after it."""
    listed = ", ".join(sorted(set(names)))
    return AttachmentMessage(kind=DISCOVERED_TOOLS_KIND, content=listed)


# --- the request ------------------------------------------------------------------------------


def tools_for_request(
    pool: Sequence[Tool[Any]],
    messages: Iterable[Any] = (),
    mode: str | None = None,
    context_window: int = DEFAULT_CONTEXT_WINDOW,
) -> list[Tool[Any]]:
    """The tools whose definitions go into this request, in pool order.

    Without deferral: the pool minus ``ToolSearch``. With deferral: the non-deferred tools
    (``ToolSearch`` among them) and the discovered ones. Wire it as the loop's
    ``QueryParams.tool_definitions`` with ``messages`` = the request window.
    """
    deferred = deferred_tools(pool, mode, context_window)
    if not deferred:
        return [t for t in pool if t.name != TOOL_SEARCH_NAME]
    deferred_names = {t.name for t in deferred}
    discovered = discovered_tool_names(messages)
    return [t for t in pool if t.name not in deferred_names or t.name in discovered]


def tool_references_enabled(setting: bool | None = None, *, provider: Any = None) -> bool:
    """``setting`` if given, else ``NB_AGENT_TOOL_REFERENCES`` (``0``/``1``), else on for
    Anthropic's API and Foundry (Bedrock and Vertex get the text fallback)."""
    if setting is not None:
        return setting
    raw = os.environ.get(TOOL_REFERENCES_ENV, "").strip().lower()
    if raw:
        return raw not in ("0", "false", "no", "off")
    from nb_agent.model.providers import Provider, provider_from_env

    return (provider or provider_from_env()) in (Provider.FIRST_PARTY, Provider.FOUNDRY)


def deferred_tools_prompt(
    pool: Sequence[Tool[Any]],
    mode: str | None = None,
    context_window: int = DEFAULT_CONTEXT_WINDOW,
) -> str | None:
    """System-prompt text announcing the deferred tools (None when nothing is deferred).

    Depends on the pool only, not on what was discovered, so the system prompt stays
    stable (and cached) across turns.
    """
    return announce_deferred(deferred_tools(pool, mode, context_window))


def announce_deferred(deferred: Sequence[Tool[Any]]) -> str | None:
    """:func:`deferred_tools_prompt` for the tools already known to be deferred."""
    if not deferred:
        return None
    servers: dict[str, int] = {}
    builtins: list[str] = []
    for tool in deferred:
        if tool.is_mcp:
            server = getattr(tool, "server_name", None) or tool.name[len("mcp__") :].partition("__")[0]
            servers[server] = servers.get(server, 0) + 1
        else:
            builtins.append(tool.name)
    sources = []
    if servers:
        listed = ", ".join(f"{name} ({count})" for name, count in sorted(servers.items()))
        sources.append(f"MCP servers {listed}")
    if builtins:
        sources.append(f"the built-in tools {', '.join(sorted(builtins))}")
    return (
        "<deferred-tools>\n"
        f"{len(deferred)} more tools are available but not loaded, to save context: from {' and '.join(sources)}.\n"
        f"Their definitions are not in your tool list. Load the ones you need with the {TOOL_SEARCH_NAME} tool first:\n"
        f'- {TOOL_SEARCH_NAME}(query="<keywords for the task>"), e.g. "list pull requests"; a word with a '
        'leading "+" is required ("+slack post message");\n'
        f'- {TOOL_SEARCH_NAME}(query="select:<name>,<name>") when you know exact tool names;\n'
        f'- {TOOL_SEARCH_NAME}(query="mcp__<server>") to list a server\'s tools (add keywords to rank them).\n'
        "MCP tools are named mcp__<server>__<tool>. Loaded tools stay available for the rest of the conversation.\n"
        "</deferred-tools>"
    )


# --- the tool ---------------------------------------------------------------------------------


class ToolSearchInput(BaseModel):
    query: str = Field(
        min_length=1,
        description=(
            'Keywords for the task ("list pull requests"; "+word" = required), '
            '"select:NameA,NameB" for exact names, or "mcp__<server>" for a server\'s tools.'
        ),
    )
    max_results: int = Field(default=5, ge=1, le=50, description="Maximum number of tools to load (default 5).")


class ToolSearchOutput(BaseModel):
    """The structured result: the names now loaded, in rank order."""

    query: str
    matches: list[str]
    descriptions: dict[str, str] = Field(default_factory=dict)
    not_found: list[str] = Field(default_factory=list)
    total_deferred_tools: int = 0
    total_matching: int = 0
    references: bool = False
    """Answer with ``tool_reference`` blocks (the API loads the definitions) instead of text."""


PoolProvider = Callable[[], Sequence[Tool[Any]]]


class ToolSearchTool(Tool[ToolSearchInput]):
    """Finds deferred tools and loads their definitions for the following requests.

    Put it among the built-ins of the pool. It searches the session's full tool pool:
    ``pool_provider()`` if given, else ``ctx.tools``
    (the engine's ``ctx.tools`` is the whole pool, deferred tools included).
    """

    name: ClassVar[str] = TOOL_SEARCH_NAME
    input_model: ClassVar[type[BaseModel]] = ToolSearchInput
    max_result_size_chars: ClassVar[float] = 100_000

    def __init__(self, *, pool_provider: PoolProvider | None = None) -> None:
        self._pool_provider = pool_provider
        self._index_key: tuple[int, ...] = ()
        self._index: ToolSearchIndex | None = None

    def prompt(self) -> str:
        return (
            "Load deferred tools. Many tools (most MCP server tools) are not in your tool list until you "
            "load them with this tool; the system prompt says which servers have deferred tools. Query forms:\n"
            '- keywords describing the task: "list pull requests", "kubernetes pod logs"; put "+" before a '
            'word that must match ("+slack post message");\n'
            '- "select:NameA,NameB" to load tools by exact name;\n'
            '- "mcp__<server>" to list a server\'s tools, optionally followed by keywords.\n'
            "The result lists the loaded tools; call them directly afterwards (they stay loaded)."
        )

    def is_read_only(self, input: ToolSearchInput | None = None) -> bool:
        return True

    def is_concurrency_safe(self, input: ToolSearchInput | None = None) -> bool:
        return True

    def interrupt_behavior(self) -> Literal["cancel", "block"]:
        return "cancel"

    async def call(self, input: ToolSearchInput, ctx: ToolUseContext, on_progress: ProgressCallback) -> ToolResult:
        output = self.search(self._pool(ctx), input.query, max_results=input.max_results)
        if ctx.services.tool_references:
            output = output.model_copy(update={"references": True})
        return ToolResult(data=output)

    def search(self, pool: Sequence[Tool[Any]], query: str, *, max_results: int = 5) -> ToolSearchOutput:
        """Run a ToolSearch query against ``pool`` (the deferrable tools are searched)."""
        query = query.strip()
        candidates = [t for t in pool if is_deferrable(t)]
        if query.lower().startswith("select:"):
            found, missing = _select(pool, query[len("select:") :])
            return _output(query, found, len(candidates), not_found=missing, total=len(found))
        exact = [t for t in pool if t.name.lower() == query.lower() and t.name != TOOL_SEARCH_NAME]
        if exact:
            return _output(query, exact, len(candidates), total=1)
        first, _, rest = query.partition(" ")
        if first.lower().startswith("mcp__"):
            scoped = _with_prefix(candidates, first.lower())
            if rest.strip() and scoped:
                ranked = [hit.tool for hit in ToolSearchIndex(scoped).search(rest, limit=len(scoped))]
                scoped = ranked + [t for t in scoped if t not in ranked]
            else:
                scoped.sort(key=lambda t: t.name)
            return _output(query, scoped[:max_results], len(candidates), total=len(scoped))
        hits = self._index_for(candidates).search(query, limit=max_results)
        return _output(query, [h.tool for h in hits], len(candidates), total=len(hits))

    def map_result_to_block(self, data: Any, tool_use_id: str) -> str | list[dict[str, Any]]:
        if not isinstance(data, ToolSearchOutput):
            return super().map_result_to_block(data, tool_use_id)
        if data.references and data.matches:
            return [{"type": "tool_reference", "tool_name": name} for name in data.matches]
        return format_search_result(data)

    # --- helpers -------------------------------------------------------------------------
    def _pool(self, ctx: ToolUseContext) -> Sequence[Tool[Any]]:
        if self._pool_provider is not None:
            return self._pool_provider()
        return ctx.tools

    def _index_for(self, tools: list[Tool[Any]]) -> ToolSearchIndex:
        # Rebuilt only when the candidate set changes (servers connect, lists change).
        key = tuple(id(t) for t in tools)
        if self._index is None or key != self._index_key:
            self._index, self._index_key = ToolSearchIndex(tools), key
        return self._index


def _with_prefix(tools: list[Tool[Any]], prefix: str) -> list[Tool[Any]]:
    # "mcp__git" means the git server, not github too; a partial name falls back to startswith.
    if prefix.count("__") == 1:
        exact = [t for t in tools if t.name.lower().startswith(prefix.rstrip("_") + "__")]
        if exact:
            return exact
    return [t for t in tools if t.name.lower().startswith(prefix)]


def _select(pool: Sequence[Tool[Any]], spec: str) -> tuple[list[Tool[Any]], list[str]]:
    found: list[Tool[Any]] = []
    missing: list[str] = []
    by_name = {t.name: t for t in pool if t.name != TOOL_SEARCH_NAME}
    by_lower = {name.lower(): t for name, t in by_name.items()}
    for raw in [n.strip() for n in spec.split(",") if n.strip()][:MAX_SELECT_NAMES]:
        tool = by_name.get(raw) or by_lower.get(raw.lower())
        if tool is None:
            # An unprefixed MCP name ("list_pull_requests") is fine if it is unambiguous.
            matches = [t for t in by_name.values() if t.is_mcp and t.name.lower().endswith("__" + raw.lower())]
            tool = matches[0] if len(matches) == 1 else None
        if tool is None:
            missing.append(raw)
        elif tool not in found:
            found.append(tool)
    return found, missing


def one_line_description(tool: Tool[Any], *, limit: int = 160) -> str:
    try:
        text = tool.prompt().strip()
    except Exception:  # noqa: BLE001 - a broken prompt must not break the search result
        return ""
    line = text.split("\n", 1)[0].strip()
    sentence = re.split(r"(?<=[.!?])\s", line, maxsplit=1)[0]
    return sentence if len(sentence) <= limit else sentence[: limit - 1].rstrip() + "…"


def _output(
    query: str, tools: list[Tool[Any]], total_deferred: int, *, not_found: list[str] | None = None, total: int = 0
) -> ToolSearchOutput:
    return ToolSearchOutput(
        query=query,
        matches=[t.name for t in tools],
        descriptions={t.name: one_line_description(t) for t in tools},
        not_found=not_found or [],
        total_deferred_tools=total_deferred,
        total_matching=max(total, len(tools)),
    )


def format_search_result(output: ToolSearchOutput) -> str:
    """The text the model reads; ``discovered_tool_names`` parses its ``- name:`` lines."""
    lines: list[str] = []
    if output.matches:
        more = (
            f" (showing {len(output.matches)} of {output.total_matching}; raise max_results for more)"
            if output.total_matching > len(output.matches)
            else ""
        )
        lines.append(
            f"Loaded {plural(len(output.matches), 'tool')}{more}. "
            "Their definitions are now available: call them directly."
        )
        lines.extend(f"- {name}: {output.descriptions.get(name, '')}".rstrip() for name in output.matches)
    else:
        lines.append(
            f'No deferred tool matched "{output.query}". Try other keywords, "mcp__<server>" to list a '
            'server\'s tools, or "select:<exact name>".'
        )
    if output.not_found:
        lines.append(f"Not found: {', '.join(output.not_found)}")
    return "\n".join(lines)
