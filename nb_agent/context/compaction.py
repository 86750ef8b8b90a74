"""What compaction hands the loop: the compacted window with its boundary, and autocompact's
count of attempts across the loop's iterations."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from nb_agent.messages import CompactBoundaryMessage


@dataclass(frozen=True, kw_only=True)
class CompactionResult:
    """What a compactor returns: the new window (boundary first) and messages to show."""

    messages: list[Any]
    boundary: CompactBoundaryMessage
    extra_messages: list[Any] = field(default_factory=list)


@dataclass(frozen=True, kw_only=True)
class AutoCompactTracking:
    """Autocompact bookkeeping across iterations (reset after a successful compaction)."""

    compacted: bool = False
    turn_counter: int = 0
    consecutive_failures: int = 0
