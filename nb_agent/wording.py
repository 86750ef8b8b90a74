"""Small wording helpers shared by every layer (engine, tools, the notebook views)."""

from __future__ import annotations


def plural(count: int, word: str) -> str:
    """``1 message``, ``2 messages``, ``1,200 tasks``: the count and the word agreeing with it."""
    return f"{count:,} {word}{'' if count == 1 else 's'}"


__all__ = ["plural"]
