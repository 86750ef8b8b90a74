"""Autocompact (SPEC §4, seed 001 §2.7 ``autoCompactIfNeeded``): summarize before the
window fills up.

It fires when the window's tokens reach the autocompact threshold (effective window −
13,000). A failed attempt leaves the history as it was and counts toward a circuit
breaker: after three consecutive failures autocompact stops trying for the rest of the
submission (in Claude Code, sessions without the breaker made thousands of doomed attempts).
The loop ends with ``blocking_limit`` only when autocompact is turned off and the window
reaches the blocking limit (seed 004); with it on, an oversized window is left to the API's
prompt-too-long answer and the reactive compact.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import replace

from nb_agent.context.compaction import AutoCompactTracking, CompactionResult
from nb_agent.context.config import ContextThresholds
from nb_agent.errors import NbAgentError
from nb_agent.model.errors import is_model_api_error

log = logging.getLogger(__name__)

MAX_CONSECUTIVE_AUTOCOMPACT_FAILURES = 3


def is_compaction_failure(exc: BaseException) -> bool:
    """An expected way for a summary to fail (model error, bad answer, disk), not a bug."""
    return isinstance(exc, (NbAgentError, OSError)) or is_model_api_error(exc)


def should_autocompact(tokens: int, thresholds: ContextThresholds) -> bool:
    return tokens >= thresholds.autocompact


def breaker_open(tracking: AutoCompactTracking) -> bool:
    return tracking.consecutive_failures >= MAX_CONSECUTIVE_AUTOCOMPACT_FAILURES


async def autocompact_if_needed(
    tokens: int,
    thresholds: ContextThresholds,
    tracking: AutoCompactTracking,
    compact: Callable[[], Awaitable[CompactionResult]],
    *,
    on_failure: Callable[[Exception, AutoCompactTracking], None] | None = None,
) -> tuple[CompactionResult | None, AutoCompactTracking]:
    """Compact if over the threshold and the breaker is closed. A failed summary is
    counted, not raised (the window is left as it was); only bugs propagate."""
    if tracking.compacted:
        tracking = replace(tracking, turn_counter=tracking.turn_counter + 1)
    if breaker_open(tracking) or not should_autocompact(tokens, thresholds):
        return None, tracking
    try:
        result = await compact()
    except Exception as exc:
        if not is_compaction_failure(exc):
            raise
        failed = replace(tracking, consecutive_failures=tracking.consecutive_failures + 1)
        log.warning("autocompact failed (%d in a row): %s", failed.consecutive_failures, exc)
        if on_failure is not None:
            on_failure(exc, failed)
        return None, failed
    return result, AutoCompactTracking(compacted=True, turn_counter=0, consecutive_failures=0)


__all__ = ["MAX_CONSECUTIVE_AUTOCOMPACT_FAILURES", "autocompact_if_needed", "breaker_open", "is_compaction_failure", "should_autocompact"]
