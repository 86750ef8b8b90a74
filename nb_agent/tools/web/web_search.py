"""WebSearch (Claude Code's schema: ``query``, ``allowed_domains``, ``blocked_domains``).

The search runs on Anthropic's side: a side call offers the Messages API's server tool
``web_search_20250305`` (with the domain filters) and the model searches. Its response
holds ``server_tool_use`` / ``web_search_tool_result`` blocks and text blocks with
``citations``; they are kept, exactly as returned, in the tool's structured result (the
transcript's ``tool_use_result``, so resume keeps them too), and the model reads them as
text with the links. Providers without the server tool do not get the tool.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from nb_agent.errors import ToolError
from nb_agent.tools.base import ProgressCallback, ToolResult, ToolUseContext
from nb_agent.tools.services import side_query
from nb_agent.tools.web.base import WebReadTool
from nb_agent.tools.web.model_choice import web_search_unavailable_reason

if TYPE_CHECKING:
    from nb_agent.model.providers import Provider

SERVER_TOOL_TYPE = "web_search_20250305"
SERVER_TOOL_NAME = "web_search"
MAX_USES = 8
MAX_TOKENS = 4096
QUERY_SOURCE = "web_search_tool"

PROMPT = """\
- Allows you to search the web and use the results to inform responses
- Provides up-to-date information for current events and recent data
- Returns search result information formatted as search result blocks, including links as markdown hyperlinks
- Use this tool for accessing information beyond your knowledge cutoff

Usage notes:
  - Domain filtering is supported to include or block specific websites
  - After answering, you MUST include a "Sources:" section listing the relevant URLs as markdown hyperlinks"""


class WebSearchInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    query: str = Field(min_length=2, description="The search query to use")
    allowed_domains: list[str] | None = Field(default=None, description="Only include search results from these domains")
    blocked_domains: list[str] | None = Field(default=None, description="Never include search results from these domains")

    @model_validator(mode="after")
    def _one_filter(self) -> WebSearchInput:
        if self.allowed_domains and self.blocked_domains:
            raise ValueError("give allowed_domains or blocked_domains, not both")
        return self


def server_tool_definition(input: WebSearchInput) -> dict[str, Any]:
    tool: dict[str, Any] = {"type": SERVER_TOOL_TYPE, "name": SERVER_TOOL_NAME, "max_uses": MAX_USES}
    if input.allowed_domains:
        tool["allowed_domains"] = list(input.allowed_domains)
    if input.blocked_domains:
        tool["blocked_domains"] = list(input.blocked_domains)
    return tool


def search_request(input: WebSearchInput, *, model: str) -> dict[str, Any]:
    return {
        "model": model,
        "max_tokens": MAX_TOKENS,
        "messages": [{"role": "user", "content": f"Perform a web search for the query: {input.query}"}],
        "tools": [server_tool_definition(input)],
    }


def _block_dict(block: Any) -> dict[str, Any]:
    if isinstance(block, dict):
        return block
    return block.model_dump(mode="json", exclude_none=True)


def search_links(blocks: list[dict[str, Any]]) -> list[dict[str, str]]:
    """Every result's title and URL, in order, without repeats."""
    links: list[dict[str, str]] = []
    seen: set[str] = set()
    for block in blocks:
        if block.get("type") != "web_search_tool_result" or not isinstance(block.get("content"), list):
            continue
        for result in block["content"]:
            url = result.get("url")
            if result.get("type") == "web_search_result" and url and url not in seen:
                seen.add(url)
                links.append({"title": result.get("title") or url, "url": url})
    return links


def search_errors(blocks: list[dict[str, Any]]) -> list[str]:
    return [
        str(block["content"].get("error_code", "unknown"))
        for block in blocks
        if block.get("type") == "web_search_tool_result" and isinstance(block.get("content"), dict)
    ]


def results_text(query: str, blocks: list[dict[str, Any]]) -> str:
    """What the model reads: the links, then the searching model's cited text."""
    lines = [f'Web search results for query: "{query}"', ""]
    errors = search_errors(blocks)
    if errors:
        lines += [f"The search failed: {', '.join(errors)}", ""]
    links = search_links(blocks)
    lines += [f"Links: {json.dumps(links, ensure_ascii=False)}", ""]
    for block in blocks:
        if block.get("type") == "text" and block.get("text", "").strip():
            text = block["text"].strip()
            cited = [c.get("url") for c in block.get("citations") or [] if c.get("url")]
            lines.append(text + (f" [sources: {', '.join(dict.fromkeys(cited))}]" if cited else ""))
    lines += ["", "REMINDER: You MUST include the sources above in your response to the user using markdown hyperlinks."]
    return "\n".join(lines)


class WebSearchTool(WebReadTool):
    name = "WebSearch"
    input_model = WebSearchInput

    def prompt(self) -> str:
        return PROMPT

    session_provider: Callable[[], Provider] | None = None
    """The session's provider now (``create_engine`` sets it), so that the tool is offered by
    where the model is actually reached, which ``%agent provider`` may change; None: the environment's."""

    def unavailable_reason(self) -> str | None:
        return web_search_unavailable_reason(provider=self.session_provider() if self.session_provider else None)

    async def call(self, input: WebSearchInput, ctx: ToolUseContext, on_progress: ProgressCallback) -> ToolResult:
        reason = web_search_unavailable_reason(ctx.model, ctx.services.provider)
        if reason:
            raise ToolError(f"Web search is not available: {reason}.")
        started = time.monotonic()
        on_progress({"message": f"Searching the web for {input.query!r}"})
        message = await side_query(ctx)(search_request(input, model=ctx.model), query_source=QUERY_SOURCE)
        blocks = [_block_dict(b) for b in getattr(message, "content", [])]
        data = {
            "query": input.query, "results": blocks, "links": search_links(blocks),
            "durationSeconds": round(time.monotonic() - started, 3), "result": results_text(input.query, blocks),
        }  # fmt: skip
        return ToolResult(data=data, is_error=bool(search_errors(blocks)) and not search_links(blocks))

