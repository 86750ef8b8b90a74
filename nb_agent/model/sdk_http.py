"""The HTTP library the installed anthropic SDK is built on (httpx2 from anthropic 2, httpx
before): fakes that raise the SDK's own errors build its Request and Response with it."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import httpx2 as sdk_http
else:
    try:
        import httpx2 as sdk_http
    except ImportError:  # pragma: no cover - anthropic < 2
        import httpx as sdk_http

__all__ = ["sdk_http"]
