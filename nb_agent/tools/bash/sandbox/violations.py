"""Recognise a sandboxed command's failure that the sandbox caused, and say so to the model.

The sandbox does not announce itself: a refused write reads ``Read-only file system``
(EROFS) or ``Permission denied`` (EACCES), a refused connection ``Network is
unreachable``, ``Connection refused`` or a failed name lookup. The model must learn that
its command was fine and the sandbox stopped it, so it can ask the user to run it
unsandboxed rather than guess at another cause.
"""

from __future__ import annotations

import re

__all__ = ["sandbox_failure_hint"]

_SIGNATURES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("write", re.compile(r"read-only file system|EROFS", re.IGNORECASE)),
    ("access", re.compile(r"permission denied|EACCES|operation not permitted|EPERM", re.IGNORECASE)),
    (
        "network",
        re.compile(
            r"network is unreachable|ENETUNREACH|connection refused|ECONNREFUSED|could not resolve host|"
            r"temporary failure in name resolution|name or service not known|nodename nor servname|"
            r"failed to establish a new connection|no address associated with hostname|getaddrinfo|"
            r"not in sandbox\.network\.allowedDomains|tunnel connection failed|CONNECT tunnel failed|403:? Forbidden",
            re.IGNORECASE,
        ),
    ),
)
_WHAT = {
    "write": "a write outside the writable directories",
    "access": "access to a path the sandbox protects (read-only or hidden)",
    "network": "a network connection",
}


def sandbox_failure_hint(output: str, *, exit_code: int | None, limits: str, unsandboxed_allowed: bool) -> str | None:
    """A note for the model when a sandboxed command's failure looks caused by the sandbox."""
    if not exit_code:
        return None
    matched = [(kind, line.strip()) for line in output.splitlines() for kind, pattern in _SIGNATURES if pattern.search(line)]
    if not matched:
        return None
    kind, line = matched[0]
    shown = line if len(line) <= 200 else line[:200] + "…"
    advice = (
        "If the command really needs this, tell the user why and run it again with dangerouslyDisableSandbox: true; "
        "that run is outside the sandbox and needs the user's approval."
        if unsandboxed_allowed
        else "Running outside the sandbox is disabled by the user's settings (sandbox.allowUnsandboxedCommands is false)."
    )
    return (
        f"Sandbox: this command ran in nb_agent's sandbox ({limits}). The failure looks caused by the sandbox "
        f"refusing {_WHAT[kind]}: {shown!r}. {advice}"
    )
