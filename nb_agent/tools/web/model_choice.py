"""Which model a web tool's side call uses, and whether the provider can search the web.

Stand-ins until the engine publishes its own resolver (``nb_agent.model``): the web tools
call only these two functions, so switching over changes this module alone.
"""

from __future__ import annotations

import os

SMALL_FAST_MODEL = "claude-haiku-4-5"
SMALL_FAST_MODEL_ENV = "ANTHROPIC_SMALL_FAST_MODEL"
"""Claude Code's variable for the small fast model."""
_NO_SERVER_TOOLS_ENV = ("CLAUDE_CODE_USE_BEDROCK", "CLAUDE_CODE_USE_VERTEX")
WEB_SEARCH_ENV = "NB_AGENT_WEB_SEARCH"


def small_fast_model() -> str:
    """The model for quick side calls (WebFetch's answer about a page)."""
    return os.environ.get(SMALL_FAST_MODEL_ENV) or SMALL_FAST_MODEL


def web_search_unavailable_reason() -> str | None:
    """Why the Messages API's server-side web search cannot be used here, or ``None``."""
    if os.environ.get(WEB_SEARCH_ENV, "").strip().lower() in ("0", "off", "false", "no"):
        return f"turned off by {WEB_SEARCH_ENV}"
    for name in _NO_SERVER_TOOLS_ENV:
        if os.environ.get(name, "").strip() not in ("", "0", "false"):
            return f"the provider selected by {name} has no server-side web search tool"
    return None
