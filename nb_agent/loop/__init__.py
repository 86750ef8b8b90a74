"""The query loop (SPEC §1–2)."""

from nb_agent.loop.query import query
from nb_agent.loop.state import CONTINUE_REASONS, TERMINAL_REASONS, Continue, QueryDeps, QueryParams, State, Terminal

__all__ = ["CONTINUE_REASONS", "TERMINAL_REASONS", "Continue", "QueryDeps", "QueryParams", "State", "Terminal", "query"]
