"""A titled, bounded list of one-line entries, for the notes attached between turns."""

from __future__ import annotations


def cut_line(text: str, limit: int) -> str:
    """``text`` on one line (whitespace collapsed), cut to ``limit`` characters."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def bounded_list(title: str, entries: list[str], *, max_entries: int) -> list[str]:
    """``title:`` then the first ``max_entries`` entries as ``  - entry`` lines (nothing when
    there is no entry); the title says how many were left out."""
    if not entries:
        return []
    shown = entries[:max_entries]
    more = f" (and {len(entries) - len(shown)} more)" if len(entries) > len(shown) else ""
    return [f"{title}{more}:"] + [f"  - {entry}" for entry in shown]
