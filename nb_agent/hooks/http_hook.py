"""``"type": "http"`` hooks: the event is POSTed as JSON to a URL; the response body is
read as a command hook's stdout is (Claude Code's format).

``{"type": "http", "url": "https://…", "headers": {"Authorization": "Bearer $TOKEN"},
"allowedEnvVars": ["TOKEN"], "timeout": 30}``: ``$VAR`` / ``${VAR}`` in a header value is
the environment variable only when ``allowedEnvVars`` names it (otherwise empty, so a
folder's hook cannot send your other variables anywhere). A 2xx answer's body is the
hook's output; any other status, a redirect (not followed) or a failed connection is a
warning that changes nothing.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping, Sequence
from urllib.parse import urlsplit

from nb_agent.errors import ConfigurationError
from nb_agent.hooks.command import MAX_OUTPUT_BYTES, CommandHookWarning, parse_hook_stdout
from nb_agent.hooks.types import HookCallback, HookInput, HookOutput

__all__ = ["DEFAULT_HTTP_HOOK_TIMEOUT_S", "http_hook", "interpolate_header"]

DEFAULT_HTTP_HOOK_TIMEOUT_S = 30.0
_VARIABLE = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")


def interpolate_header(value: str, allowed: Sequence[str], env: Mapping[str, str] | None = None) -> str:
    """``value`` with ``$VAR`` / ``${VAR}`` replaced: the variable for names in ``allowed``,
    empty for any other."""
    env = os.environ if env is None else env

    def one(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(2)
        return env.get(name, "") if name in allowed else ""

    return _VARIABLE.sub(one, value)


def check_url(url: str) -> str:
    """``url`` if it is an http(s) URL with a host; raises ``ConfigurationError``."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigurationError(f"an http hook needs an http(s) URL, not {url!r}")
    return url


def http_hook(url: str, *, headers: Mapping[str, str], allowed_env_vars: Sequence[str], timeout: float) -> HookCallback:
    """A hook callback that POSTs the event to ``url``."""
    check_url(url)

    async def run(hook_input: HookInput) -> HookOutput | None:
        import httpx  # here, not at import: the engine imports this module, few settings have http hooks

        sent = {name: interpolate_header(str(value), allowed_env_vars) for name, value in headers.items()}
        body = json.dumps(hook_input.to_json_dict(), default=str).encode()
        try:
            async with httpx.AsyncClient(timeout=timeout, follow_redirects=False) as client:
                async with client.stream(
                    "POST", url, content=body, headers={"Content-Type": "application/json", **sent}
                ) as response:
                    data = bytearray()
                    async for chunk in response.aiter_bytes():
                        data += chunk
                        if len(data) > MAX_OUTPUT_BYTES:
                            raise CommandHookWarning(f"http hook {url} answered more than {MAX_OUTPUT_BYTES // (1024 * 1024)} MB; ignored")
        except httpx.HTTPError as exc:
            raise CommandHookWarning(f"http hook {url} failed: {type(exc).__name__}: {exc}") from None
        if not 200 <= response.status_code < 300:
            raise CommandHookWarning(f"http hook {url} answered {response.status_code}; ignored")
        return parse_hook_stdout(data.decode("utf-8", errors="replace"), hook_input.hook_event_name)

    run.__qualname__ = f"http_hook({url!r})"
    return run
