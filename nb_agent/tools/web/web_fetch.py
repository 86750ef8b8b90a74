"""WebFetch (Claude Code's schema: ``url``, ``prompt``): fetch a page, then have the small
fast model answer ``prompt`` about it in a side call, and return that answer.

Read-only and concurrency-safe (an HTTP GET). Being read-only does not allow it: it
reaches other hosts, so in the default mode it asks unless a ``WebFetch(domain:…)``
rule allows the host. Pages are cached for 15 minutes per session; the content given to
the side call is capped at 100,000 characters (the seeds' persistence threshold for
WebFetch, which is also its result cap).
"""

from __future__ import annotations

import time
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from nb_agent.errors import ToolError
from nb_agent.tools.base import ProgressCallback, ToolResult, ToolUseContext, ValidationResult
from nb_agent.tools.services import side_query
from nb_agent.tools.web.base import WebReadTool
from nb_agent.tools.web.cache import TtlCache
from nb_agent.tools.web.model_choice import small_fast_model
from nb_agent.tools.web.page import DEFAULT_TIMEOUT_S, CrossHostRedirect, FetchedPage, fetch_page, parse_url

MAX_CONTENT_CHARS = 100_000
"""The page content given to the side call (and the tool's result cap)."""
ANSWER_MAX_TOKENS = 2048
QUERY_SOURCE = "web_fetch_apply_prompt"

PROMPT = """\
- Fetches content from a specified URL and processes it using an AI model
- Takes a URL and a prompt as input
- Fetches the URL content, converts HTML to markdown
- Processes the content with the prompt using a small, fast model
- Returns the model's response about the content
- Use this tool when you need to retrieve and analyze web content

Usage notes:
  - The URL must be a fully-formed valid URL (http or https)
  - The prompt should describe what information you want to extract from the page
  - This tool is read-only and does not modify any files
  - Results may be summarized if the content is very large
  - Includes a self-cleaning 15-minute cache for faster responses when repeatedly accessing the same URL
  - When a URL redirects to a different host, the tool will inform you and provide the redirect URL. You should then make a new WebFetch request with the redirect URL to fetch the content."""

APPLY_PROMPT = """\
Web page content:
---
{content}
---

{prompt}

Provide a concise response based only on the content above. Quote only what is needed, keep quotes short, and never reproduce long passages of the page verbatim."""


class WebFetchInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    url: str = Field(description="The URL to fetch content from", json_schema_extra={"format": "uri"})
    prompt: str = Field(description="The prompt to run on the fetched content")


def redirect_text(redirect: CrossHostRedirect, prompt: str) -> str:
    return (
        "REDIRECT DETECTED: The URL redirects to a different host.\n\n"
        f"Original URL: {redirect.original_url}\n"
        f"Redirect URL: {redirect.redirect_url}\n"
        f"Status: {redirect.status} {redirect.reason}\n\n"
        "The redirect was not followed. To read the page, use WebFetch again with these parameters:\n"
        f'- url: "{redirect.redirect_url}"\n'
        f'- prompt: "{prompt}"'
    )


def page_content(page: FetchedPage) -> str | list[dict[str, Any]]:
    """What the side call reads: the (capped) text, or the PDF as a document block."""
    if page.pdf_base64 is not None:
        return [{"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": page.pdf_base64}}]
    if len(page.text) > MAX_CONTENT_CHARS:
        return page.text[:MAX_CONTENT_CHARS] + "\n\n[Content truncated due to length...]"
    return page.text


def apply_prompt_request(page: FetchedPage, prompt: str, *, model: str) -> dict[str, Any]:
    content = page_content(page)
    if isinstance(content, str):
        message: Any = APPLY_PROMPT.format(content=content, prompt=prompt)
    else:
        message = [*content, {"type": "text", "text": APPLY_PROMPT.format(content="(the PDF document above)", prompt=prompt)}]
    return {"model": model, "max_tokens": ANSWER_MAX_TOKENS, "messages": [{"role": "user", "content": message}]}


def _answer_text(message: Any) -> str:
    parts = [getattr(b, "text", "") for b in getattr(message, "content", []) if getattr(b, "type", "") == "text"]
    return "\n".join(p for p in parts if p).strip() or "(the model gave no answer about this page)"


class WebFetchTool(WebReadTool):
    name = "WebFetch"
    input_model = WebFetchInput
    repeats_its_content = True  # the structured output is its text again: kept once
    max_result_size_chars = MAX_CONTENT_CHARS

    def __init__(self, *, timeout_s: float = DEFAULT_TIMEOUT_S, max_body_bytes: int | None = None) -> None:
        self.timeout_s = timeout_s
        self.max_body_bytes = max_body_bytes

    def prompt(self) -> str:
        return PROMPT

    def permission_rule_content(self, input: WebFetchInput) -> str | None:
        try:
            return parse_url(input.url).host
        except ToolError:
            return None

    async def validate_input(self, input: WebFetchInput, ctx: ToolUseContext) -> ValidationResult:
        try:
            parse_url(input.url)
        except ToolError as exc:
            return ValidationResult.failed(str(exc))
        if not input.prompt.strip():
            return ValidationResult.failed("WebFetch needs a prompt saying what to find in the page.")
        return ValidationResult.passed()

    def _cache(self, ctx: ToolUseContext) -> TtlCache[FetchedPage]:
        cache = ctx.session.resources.web_cache
        if cache is None:
            cache = ctx.session.resources.web_cache = TtlCache()
        return cache

    async def fetch(self, url: str, ctx: ToolUseContext) -> tuple[FetchedPage | CrossHostRedirect, bool]:
        """The page (from the cache when fresh) and whether it came from the cache."""
        target = parse_url(url)
        cache = self._cache(ctx)
        key = str(target.url)
        cached = cache.get(key)
        if cached is not None:
            return cached, True
        kwargs: dict[str, Any] = {"timeout_s": self.timeout_s, "max_text_chars": MAX_CONTENT_CHARS}
        if self.max_body_bytes is not None:
            kwargs["max_bytes"] = self.max_body_bytes
        page = await fetch_page(target, **kwargs)
        if isinstance(page, FetchedPage):
            cache.put(key, page)
        return page, False

    async def call(self, input: WebFetchInput, ctx: ToolUseContext, on_progress: ProgressCallback) -> ToolResult:
        started = time.monotonic()
        on_progress({"message": f"Fetching {input.url}"})
        page, cached = await self.fetch(input.url, ctx)
        if isinstance(page, CrossHostRedirect):
            text = redirect_text(page, input.prompt)
            return ToolResult(data={"url": input.url, "code": page.status, "codeText": page.reason, "bytes": 0, "result": text,
                                    "redirect": page.redirect_url, "durationMs": _ms(started)})  # fmt: skip
        model = small_fast_model(ctx.services.provider)
        on_progress({"message": f"Reading {page.bytes:,} bytes with {model}"})
        request = apply_prompt_request(page, input.prompt, model=model)
        answer = _answer_text(await side_query(ctx)(request, query_source=QUERY_SOURCE))
        return ToolResult(
            data={
                "url": page.url, "code": page.status, "codeText": page.reason, "bytes": page.bytes,
                "contentType": page.content_type, "result": answer, "cached": cached, "durationMs": _ms(started),
            }  # fmt: skip
        )



def _ms(started: float) -> int:
    return int((time.monotonic() - started) * 1000)
