"""Token budget continuation (SPEC §4): the user asked the agent to spend about N tokens.

Continue while under 90 % of the budget and not diminishing (diminishing = at least 3
continuations and the last two each added fewer than 500 output tokens). Subagents never.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

COMPLETION_THRESHOLD = 0.9
DIMINISHING_DELTA_TOKENS = 500
MIN_CONTINUATIONS_FOR_DIMINISHING = 3

_MULTIPLIERS = {"": 1, "k": 1_000, "m": 1_000_000}
_SHORTHAND = re.compile(r"(?:^|\s)\+(\d+(?:\.\d+)?)\s*([km]?)\b", re.IGNORECASE)
_VERBOSE = re.compile(
    r"\b(?:use|spend)\s+(?:about\s+|around\s+|roughly\s+|up\s+to\s+)?(\d+(?:\.\d+)?)\s*([km]?)\s*tokens?\b",
    re.IGNORECASE,
)


def parse_token_budget(prompt: str) -> int | None:
    """``+50k`` or "use about 50k tokens" → 50000; None when the prompt states no budget."""
    match = _SHORTHAND.search(prompt) or _VERBOSE.search(prompt)
    if match is None:
        return None
    value = float(match.group(1)) * _MULTIPLIERS[match.group(2).lower()]
    return int(value) if value > 0 else None


@dataclass(kw_only=True)
class BudgetTracker:
    budget: int
    continuation_count: int = 0
    deltas: list[int] = field(default_factory=list)
    last_total: int = 0

    def record(self, total_output_tokens: int) -> None:
        self.deltas.append(total_output_tokens - self.last_total)
        self.last_total = total_output_tokens

    @property
    def diminishing(self) -> bool:
        return (
            self.continuation_count >= MIN_CONTINUATIONS_FOR_DIMINISHING
            and len(self.deltas) >= 2
            and all(d < DIMINISHING_DELTA_TOKENS for d in self.deltas[-2:])
        )

    def should_continue(self, total_output_tokens: int, *, is_subagent: bool = False) -> bool:
        if is_subagent:
            return False
        self.record(total_output_tokens)
        if total_output_tokens >= COMPLETION_THRESHOLD * self.budget or self.diminishing:
            return False
        self.continuation_count += 1
        return True

    def nudge(self, total_output_tokens: int) -> str:
        pct = round(100 * total_output_tokens / self.budget)
        return (
            f"You have used {total_output_tokens:,} of the {self.budget:,}-token budget the user asked for "
            f"({pct}%). Keep working on the task — do not summarize or stop early."
        )
