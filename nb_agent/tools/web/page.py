"""Fetching one page for WebFetch: redirects within the same host followed, a redirect to
another host reported instead of followed, the body capped, HTML turned into Markdown.

The URL is parsed once (``httpx.URL``) and the host the permission rules see is the host
this client connects to, so a rule cannot be matched by one spelling and the request
sent to another.
"""

from __future__ import annotations

import asyncio
import base64
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from nb_agent.errors import ToolError
from nb_agent.permissions.domains import canonical_host
from nb_agent.tools.web.convert import PDF_TYPE, html_to_markdown, is_html, is_text, media_type

if TYPE_CHECKING:
    import httpx

MAX_URL_CHARS = 2000
MAX_BODY_BYTES = 10 * 1024 * 1024
MAX_REDIRECTS = 10
DEFAULT_TIMEOUT_S = 60.0
USER_AGENT = "nb_agent-WebFetch/0.1 (+https://github.com/; fetches a page the user's agent was asked to read)"
_REDIRECT_CODES = frozenset({301, 302, 303, 307, 308})


@dataclass(frozen=True, kw_only=True)
class ParsedUrl:
    url: httpx.URL
    host: str
    """Canonical host (ASCII, lower case, IDNA): what ``WebFetch(domain:…)`` rules match."""

    @property
    def origin(self) -> tuple[str, str, int | None]:
        return (self.url.scheme, self.host, self.url.port)


def parse_url(raw: str) -> ParsedUrl:
    """Check and parse a URL; ``ToolError`` says what is wrong with it."""
    import httpx  # here, not at import: building the tool pool should not pay for it

    text = raw.strip()
    if len(text) > MAX_URL_CHARS:
        raise ToolError(f"The URL is too long ({len(text)} characters; at most {MAX_URL_CHARS}).")
    try:
        url = httpx.URL(text)
    except (httpx.InvalidURL, TypeError, ValueError) as exc:
        raise ToolError(f"Invalid URL {raw!r}: {exc}") from None
    if url.scheme not in ("http", "https"):
        raise ToolError(f"Only http and https URLs can be fetched, not {url.scheme or 'a relative URL'}: {raw!r}")
    if url.userinfo:
        raise ToolError("URLs with a user name or password (user@host) are not fetched.")
    host = canonical_host(url.raw_host.decode("ascii", "replace")) if url.raw_host else None
    if not host:
        raise ToolError(f"The URL {raw!r} names no valid host.")
    return ParsedUrl(url=url, host=host)


@dataclass(frozen=True, kw_only=True)
class FetchedPage:
    url: str
    """The URL finally read (after same-host redirects)."""
    status: int
    reason: str
    content_type: str
    bytes: int
    text: str = ""
    """Markdown (HTML) or the text itself; empty for a PDF."""
    pdf_base64: str | None = None
    fetch_s: float = 0.0


@dataclass(frozen=True, kw_only=True)
class CrossHostRedirect:
    """The page moved to another host: reported to the model, not followed."""

    original_url: str
    redirect_url: str
    status: int
    reason: str


async def fetch_page(
    target: ParsedUrl,
    *,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    max_bytes: int = MAX_BODY_BYTES,
    max_text_chars: int | None = None,
) -> FetchedPage | CrossHostRedirect:
    """GET ``target``; ``ToolError`` for HTTP errors, timeouts, oversize or unreadable bodies.
    ``max_text_chars``: how much of an HTML page's Markdown is needed (the rest may be left out)."""
    import httpx

    started = time.monotonic()
    headers = {"User-Agent": USER_AGENT, "Accept": "text/markdown, text/html;q=0.9, */*;q=0.8"}
    try:
        async with httpx.AsyncClient(follow_redirects=False, timeout=timeout_s, headers=headers, trust_env=False) as client:
            current = target
            for _ in range(MAX_REDIRECTS + 1):
                async with client.stream("GET", current.url) as response:
                    if response.status_code in _REDIRECT_CODES and "location" in response.headers:
                        moved = _redirect_target(current, response)
                        if moved.origin != current.origin:
                            return CrossHostRedirect(
                                original_url=str(target.url), redirect_url=str(moved.url),
                                status=response.status_code, reason=response.reason_phrase,
                            )  # fmt: skip
                        current = moved
                        continue
                    return await _read(current, response, max_bytes=max_bytes, max_text_chars=max_text_chars, started=started)
            raise ToolError(f"Too many redirects (more than {MAX_REDIRECTS}) from {target.url}.")
    except httpx.TimeoutException:
        raise ToolError(f"Fetching {target.url} timed out after {timeout_s:g}s.") from None
    except httpx.HTTPError as exc:
        raise ToolError(f"Fetching {target.url} failed: {type(exc).__name__}: {exc}") from None


def _redirect_target(current: ParsedUrl, response: httpx.Response) -> ParsedUrl:
    location = response.headers["location"]
    try:
        return parse_url(str(current.url.join(location)))
    except ToolError as exc:
        raise ToolError(f"The page redirected to an unusable location {location!r}: {exc}") from None


async def _read(
    current: ParsedUrl, response: httpx.Response, *, max_bytes: int, max_text_chars: int | None, started: float
) -> FetchedPage:
    if not 200 <= response.status_code < 300:
        raise ToolError(f"Request failed with status code {response.status_code} ({response.reason_phrase}) for {current.url}")
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > max_bytes:
        raise ToolError(f"The page is too large ({int(declared):,} bytes; at most {max_bytes:,} are fetched).")
    body = bytearray()
    async for chunk in response.aiter_bytes():
        body += chunk
        if len(body) > max_bytes:
            raise ToolError(f"The page is too large (more than {max_bytes:,} bytes; at most {max_bytes:,} are fetched).")
    raw_type = response.headers.get("content-type", "")
    kind = media_type(raw_type) or "application/octet-stream"
    page = {
        "url": str(current.url), "status": response.status_code, "reason": response.reason_phrase,
        "content_type": raw_type or kind, "bytes": len(body), "fetch_s": time.monotonic() - started,
    }  # fmt: skip
    if kind == PDF_TYPE or bytes(body[:5]) == b"%PDF-":
        return FetchedPage(**page, pdf_base64=base64.b64encode(bytes(body)).decode("ascii"))
    if not (is_html(kind) or is_text(kind)):
        raise ToolError(f"{current.url} is {kind}, which WebFetch cannot read (it reads HTML, text, JSON, XML and PDF).")
    text = bytes(body).decode(response.encoding or "utf-8", errors="replace")
    if is_html(kind):
        # html2text is pure Python (seconds for a large page): off the event loop, so the
        # kernel, the live view and Stop stay responsive meanwhile.
        text = await asyncio.to_thread(html_to_markdown, text, base_url=str(current.url), max_chars=max_text_chars)
    return FetchedPage(**page, text=text)
