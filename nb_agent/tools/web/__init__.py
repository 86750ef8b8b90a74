"""Tools that read the web: WebFetch (a page, answered about by the small fast model) and
WebSearch (the Messages API's server-side search)."""

from __future__ import annotations

from typing import Any

from nb_agent.tools.base import Tool
from nb_agent.tools.web.web_fetch import WebFetchTool
from nb_agent.tools.web.web_search import WebSearchTool


def web_tools() -> list[Tool[Any]]:
    """One instance of each (WebSearch disables itself where the provider cannot search)."""
    return [WebFetchTool(), WebSearchTool()]


__all__ = ["WebFetchTool", "WebSearchTool", "web_tools"]
