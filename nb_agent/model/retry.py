"""Retrying model calls (SPEC §5, seed 002 §10.2 ``withRetry``).

Up to ``max_retries`` retries after the first attempt, exponential backoff from 500 ms
with jitter, capped at 32 s. What is retried:

- 529 overloaded: only for foreground query sources, and three consecutive 529s end the
  retries — with a fallback model configured that raises ``FallbackTriggeredError`` (the
  loop switches models), otherwise the error surfaces. Background sources (tool-use
  summaries, titles) fail at the first 529 so a capacity crunch is not amplified.
- 429 rate limited: retried, waiting what ``retry-after`` (or ``retry-after-ms``) says.
- 408, 409, 5xx, a mid-stream ``error`` event (``APIStatusError`` status 200), dropped
  connections (``APIConnectionError``, the bare ``httpx2.RemoteProtocolError`` of a
  stream cut mid-body): retried.
- 401: retried once if a ``refresh_credentials`` callback says it refreshed something.
- prompt-too-long, media-too-large and other 4xx: never.

A stream can fail after it has already produced events. Retrying must not duplicate
them, so before retrying such a stream :func:`stream_with_retry` yields a
:class:`StreamRetryEvent`; the loop withdraws what the failed attempt yielded (tombstones
its assistant messages and tool results, rebuilds the tool executor) exactly as on a
fallback switch, and the retried response starts clean. Each retry is announced with a
``SystemMessage`` (subtype ``api_retry``).
"""

from __future__ import annotations

import asyncio
import email.utils
import random as _random
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from nb_agent.abort import AbortSignal
from nb_agent.errors import FallbackTriggeredError, MediaTooLargeError, NbAgentError, PromptTooLongError
from nb_agent.messages import SystemMessage
from nb_agent.model.errors import classify, is_model_api_error, is_transport_error, status_of

RETRY_NOTICE_SUBTYPE = "api_retry"
"""The subtype of the ``SystemMessage`` said before each retry (a view replaces or drops it)."""

T = TypeVar("T")

DEFAULT_MAX_RETRIES = 10
BASE_DELAY_S = 0.5
MAX_DELAY_S = 32.0
MAX_529_RETRIES = 3
"""Consecutive 529s after which retrying stops (fallback model, or the error surfaces)."""
MAX_RETRY_AFTER_S = 300.0
"""A ``retry-after`` longer than this is not waited for; the error surfaces instead."""

FOREGROUND_529_RETRY_SOURCES = frozenset(
    {
        "repl_main_thread",
        "sdk",
        "agent:custom",
        "agent:default",
        "agent:builtin",
        "compact",
        "hook_agent",
        "hook_prompt",
        "verification_agent",
        "side_question",
        "auto_mode",
    }
)
"""Query sources whose 529s are retried (seed 002 §10.2); everything else fails fast."""

RETRYABLE_STATUSES = frozenset({408, 409, 429, 529})


async def _sleep(seconds: float) -> None:
    await asyncio.sleep(seconds)


@dataclass(frozen=True, kw_only=True)
class RetryPolicy:
    """How many times and how long to wait. ``sleep`` and ``random`` are injectable."""

    max_retries: int = DEFAULT_MAX_RETRIES
    base_delay_s: float = BASE_DELAY_S
    max_delay_s: float = MAX_DELAY_S
    max_529_retries: int = MAX_529_RETRIES
    max_retry_after_s: float = MAX_RETRY_AFTER_S
    jitter: float = 0.25
    """Up to this fraction of the backoff is added at random."""
    sleep: Callable[[float], Awaitable[None]] = _sleep
    random: Callable[[], float] = _random.random

    def backoff(self, attempt: int) -> float:
        """Delay before retry number ``attempt`` (1-based) without a server hint."""
        base = min(self.base_delay_s * (2 ** (attempt - 1)), self.max_delay_s)
        return base + base * self.jitter * self.random()


NO_RETRIES = RetryPolicy(max_retries=0)


@dataclass(frozen=True, kw_only=True)
class StreamRetryEvent:
    """Yielded by :func:`stream_with_retry` before it retries a stream that had already
    produced events: the consumer withdraws what that attempt yielded."""

    type: Literal["stream_retry"] = "stream_retry"
    attempt: int
    error: str


@dataclass(kw_only=True)
class RetryState:
    attempt: int = 0
    """Attempts made so far (the first request is attempt 1)."""
    consecutive_529: int = 0
    refreshed_credentials: bool = False


@dataclass(frozen=True, kw_only=True)
class RetryDecision:
    action: Literal["retry", "fallback", "give_up"]
    delay_s: float = 0.0
    reason: str = ""


@dataclass(frozen=True, kw_only=True)
class RetryContext:
    """Who is asking: decides the 529 treatment and whether a fallback exists."""

    query_source: str = "repl_main_thread"
    model: str = ""
    fallback_model: str | None = None
    refresh_credentials: Callable[[], bool] | None = None
    abort_signal: AbortSignal | None = None


def retry_after_seconds(exc: BaseException) -> float | None:
    """The server's ``retry-after-ms`` / ``retry-after`` (seconds or HTTP date), if any."""
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if headers is None:
        return None
    raw_ms = headers.get("retry-after-ms")
    if raw_ms:
        try:
            return max(0.0, float(raw_ms) / 1000)
        except ValueError:
            pass
    raw = headers.get("retry-after")
    if not raw:
        return None
    try:
        return max(0.0, float(raw))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(raw)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def is_overloaded(exc: BaseException) -> bool:
    return status_of(exc) == 529


def decide(exc: BaseException, state: RetryState, policy: RetryPolicy, context: RetryContext) -> RetryDecision:
    """What to do after attempt ``state.attempt`` failed with ``exc`` (updates 529 count)."""
    if not is_model_api_error(exc):
        return RetryDecision(action="give_up", reason="not a model API error")
    if isinstance(classify(exc), (PromptTooLongError, MediaTooLargeError)):
        return RetryDecision(action="give_up", reason="request too large: retrying cannot help")
    status = status_of(exc)
    if status == 529:
        state.consecutive_529 += 1
        if context.query_source not in FOREGROUND_529_RETRY_SOURCES:
            return RetryDecision(action="give_up", reason=f"529 for background source {context.query_source}")
        if state.consecutive_529 >= policy.max_529_retries:
            if context.fallback_model and context.fallback_model != context.model:
                return RetryDecision(action="fallback", reason="repeated 529")
            return RetryDecision(action="give_up", reason=f"{state.consecutive_529} consecutive 529s")
    else:
        state.consecutive_529 = 0
    if state.attempt > policy.max_retries:
        return RetryDecision(action="give_up", reason="retries exhausted")
    if status == 401:
        if state.refreshed_credentials or context.refresh_credentials is None or not context.refresh_credentials():
            return RetryDecision(action="give_up", reason="authentication failed")
        state.refreshed_credentials = True
        return RetryDecision(action="retry", delay_s=0.0, reason="credentials refreshed")
    if not _is_retryable(exc, status):
        return RetryDecision(action="give_up", reason=f"status {status} is not retryable")
    hint = retry_after_seconds(exc)
    if hint is not None:
        if hint > policy.max_retry_after_s:
            return RetryDecision(action="give_up", reason=f"retry-after {hint:.0f}s is too long")
        return RetryDecision(action="retry", delay_s=hint, reason="retry-after")
    return RetryDecision(action="retry", delay_s=policy.backoff(state.attempt), reason="backoff")


def _is_retryable(exc: BaseException, status: int | None) -> bool:
    if isinstance(exc, NbAgentError):
        return False  # nb_agent's own errors (a diverged cassette, a bad config) are not transient
    if is_transport_error(exc) or status is None:
        return True  # APIConnectionError / APITimeoutError / a bare protocol error: no status
    if status == 200:
        return True  # a mid-stream error event of an unknown type
    return status in RETRYABLE_STATUSES or status >= 500


def _notice(exc: BaseException, state: RetryState, policy: RetryPolicy, delay: float) -> SystemMessage:
    return SystemMessage(
        level="warning",
        subtype=RETRY_NOTICE_SUBTYPE,
        content=f"{classify(exc)} — retrying in {delay:.1f}s (attempt {state.attempt + 1}/{policy.max_retries + 1})",
    )


async def _wait(policy: RetryPolicy, delay: float, abort_signal: AbortSignal | None) -> bool:
    """Sleep ``delay``; False if the run was aborted meanwhile."""
    if abort_signal is None:
        await policy.sleep(delay)
        return True
    if abort_signal.aborted:
        return False
    sleeper = asyncio.ensure_future(policy.sleep(delay))
    aborted = asyncio.ensure_future(abort_signal.wait())
    try:
        await asyncio.wait({sleeper, aborted}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in (sleeper, aborted):
            if not task.done():
                task.cancel()
    return not abort_signal.aborted


def _decide_or_raise(exc: Exception, state: RetryState, policy: RetryPolicy, context: RetryContext) -> RetryDecision:
    """The retry decision for ``exc``; raises it (or ``FallbackTriggeredError``) when not retrying."""
    decision = decide(exc, state, policy, context)
    if decision.action == "give_up":
        raise exc
    if decision.action == "fallback":
        assert context.fallback_model is not None
        raise FallbackTriggeredError(original_model=context.model, fallback_model=context.fallback_model) from exc
    return decision


async def stream_with_retry(
    call_once: Callable[[Any], AsyncIterator[Any]],
    request: Any,
    *,
    policy: RetryPolicy,
    context: RetryContext,
) -> AsyncIterator[Any]:
    """Stream ``call_once(request)``, retrying per ``policy`` (see the module doc).

    Yields the stream's items, a ``SystemMessage`` before each retry and, when the
    failed attempt had already yielded something, a ``StreamRetryEvent`` first. Raises
    the last error when giving up, ``FallbackTriggeredError`` after repeated 529s with
    a fallback model. Returns quietly if the run is aborted while waiting.
    """
    state = RetryState()
    while True:
        state.attempt += 1
        yielded = False
        try:
            async for item in call_once(request):
                yielded = True
                yield item
            return
        except Exception as exc:  # noqa: BLE001 - every failure is classified: retried, or raised again
            decision = _decide_or_raise(exc, state, policy, context)
            if yielded:
                yield StreamRetryEvent(attempt=state.attempt, error=str(classify(exc)))
            yield _notice(exc, state, policy, decision.delay_s)
            if not await _wait(policy, decision.delay_s, context.abort_signal):
                return


async def call_with_retry(
    call_once: Callable[[], Awaitable[T]],
    *,
    policy: RetryPolicy,
    context: RetryContext,
    on_retry: Callable[[SystemMessage], None] | None = None,
) -> T:
    """Await ``call_once()`` (a non-streaming request), retrying per ``policy``."""
    state = RetryState()
    while True:
        state.attempt += 1
        try:
            return await call_once()
        except Exception as exc:
            decision = _decide_or_raise(exc, state, policy, context)
            if on_retry is not None:
                on_retry(_notice(exc, state, policy, decision.delay_s))
            if not await _wait(policy, decision.delay_s, context.abort_signal):
                raise


__all__ = [
    "FOREGROUND_529_RETRY_SOURCES",
    "NO_RETRIES",
    "RetryContext",
    "RetryDecision",
    "RetryPolicy",
    "RetryState",
    "StreamRetryEvent",
    "call_with_retry",
    "decide",
    "retry_after_seconds",
    "stream_with_retry",
]
