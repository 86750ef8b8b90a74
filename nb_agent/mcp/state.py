"""What the MCP manager needs before any server starts, without the MCP SDK: the limits
servers run under (``McpSettings``, from the environment), a server's status, and the one
line a failure is described in.

The SDK (``mcp``, ``mcp_types``: about half a second of imports) loads when the first
server starts, so a session without MCP servers never pays for it, and the first request
of a kernel's first ``%%agent`` cell does not wait for it.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

if sys.version_info < (3, 11):  # pragma: no cover
    from exceptiongroup import BaseExceptionGroup

ServerStatus = Literal["pending", "connecting", "connected", "failed", "disconnected", "closed"]
"""``pending``: configured, not started. ``failed``: could not connect (see ``error``).
``disconnected``: was connected, then the server went away (reconnected by ``refresh``)."""

DEFAULT_CONNECT_TIMEOUT = 30.0
CONNECT_TIMEOUT_ENV = "NB_AGENT_MCP_TIMEOUT"
DEFAULT_MAX_OUTPUT_TOKENS = 25_000
MAX_OUTPUT_TOKENS_ENV = "NB_AGENT_MCP_MAX_OUTPUT_TOKENS"


def sdk_installed() -> bool:
    """Whether the ``mcp`` extra is installed (looked up, not imported)."""
    return importlib.util.find_spec("mcp") is not None


def max_output_tokens_from_env(environ: Mapping[str, str] | None = None) -> int:
    """The cap from ``NB_AGENT_MCP_MAX_OUTPUT_TOKENS``, or the default if unset or invalid."""
    raw = (os.environ if environ is None else environ).get(MAX_OUTPUT_TOKENS_ENV, "")
    try:
        value = int(raw)
    except ValueError:
        return DEFAULT_MAX_OUTPUT_TOKENS
    return value if value > 0 else DEFAULT_MAX_OUTPUT_TOKENS


def _float_env(name: str, default: float) -> float:
    try:
        value = float(os.environ.get(name, ""))
    except ValueError:
        return default
    return value if value > 0 else default


@dataclass(frozen=True, kw_only=True)
class McpSettings:
    """Limits for MCP servers; ``from_env()`` reads the ``NB_AGENT_MCP_*`` variables."""

    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT
    """Seconds a server gets to start, finish the handshake and list its tools."""
    max_output_tokens: int = DEFAULT_MAX_OUTPUT_TOKENS
    """Per-call cap on a tool result (≈ 4 chars per token); more is truncated with a note."""
    call_timeout: float | None = None
    """Seconds one tool call may take (None: no limit beyond the user's Stop button)."""

    @classmethod
    def from_env(cls) -> McpSettings:
        return cls(
            connect_timeout=_float_env(CONNECT_TIMEOUT_ENV, DEFAULT_CONNECT_TIMEOUT),
            max_output_tokens=max_output_tokens_from_env(),
        )


def describe_exception(exc: BaseException) -> str:
    """A one-line description, unwrapping the exception groups anyio raises."""
    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    if isinstance(exc, BaseExceptionGroup):
        return "; ".join(describe_exception(e) for e in exc.exceptions)
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
