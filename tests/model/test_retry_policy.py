"""The retry decision (SPEC §5, seed 002 §10.2): what is retried, how long to wait, when
529s turn into a fallback — on the real SDK exception classes."""

from __future__ import annotations

import email.utils
import time

import anthropic
import pytest

from nb_agent.model.retry import RetryContext, RetryPolicy, RetryState, decide, retry_after_seconds
from nb_agent.testing import (
    ErrorReply,
    Reply,
    ScriptedTransport,
    overloaded_error,
    prompt_too_long_error,
    rate_limit_error,
    request_too_large_error,
    text,
)

try:
    import httpx2 as http
except ImportError:  # pragma: no cover
    import httpx as http  # type: ignore[no-redef]

POLICY = RetryPolicy(random=lambda: 0.0)
MAIN = RetryContext(query_source="repl_main_thread", model="claude-sonnet-4-6")


async def raised(turn) -> BaseException:
    """The exception the SDK raises for ``turn`` (while streaming)."""
    transport = ScriptedTransport([turn])
    try:
        async for _ in transport.stream({"model": "m", "max_tokens": 1, "messages": [{"role": "user", "content": "hi"}]}):
            pass
    except Exception as exc:  # noqa: BLE001
        return exc
    raise AssertionError("the turn did not fail")


def _decide(exc, *, attempt: int = 1, state: RetryState | None = None, policy: RetryPolicy = POLICY, context: RetryContext = MAIN):
    state = state or RetryState()
    state.attempt = attempt
    return decide(exc, state, policy, context)


@pytest.mark.parametrize(
    "turn",
    [
        ErrorReply(status=500),
        ErrorReply(status=502, error_type="api_error"),
        ErrorReply(status=503, error_type="api_error"),
        ErrorReply(status=408, error_type="api_error"),
        ErrorReply(status=409, error_type="api_error"),
        rate_limit_error(),
        Reply(content=[text("hello there")], error_after_events=3, error_type="api_error"),
        Reply(content=[text("hello there")], drop_after_events=3),
        Reply(content=[text("hello there")], drop_after_events=0),
    ],
    ids=["500", "502", "503", "408", "409", "429", "mid-stream-error", "mid-stream-drop", "drop-before-response"],
)
async def test_transient_failures_are_retried(turn):
    exc = await raised(turn)
    decision = _decide(exc)
    assert decision.action == "retry" and decision.delay_s == 0.5


async def test_the_fault_classes_are_the_sdks():
    assert isinstance(await raised(overloaded_error()), anthropic.OverloadedError)
    assert isinstance(await raised(Reply(content=[text("x" * 40)], error_after_events=3)), anthropic.APIStatusError)
    assert type(await raised(Reply(content=[text("x" * 40)], drop_after_events=3))) is http.RemoteProtocolError
    assert isinstance(await raised(Reply(content=[text("x")], drop_after_events=0)), anthropic.APIConnectionError)


@pytest.mark.parametrize(
    "turn",
    [
        prompt_too_long_error(),
        request_too_large_error(),
        ErrorReply(status=400, error_type="invalid_request_error", message="image exceeds 5 MB maximum"),
        ErrorReply(status=400, error_type="invalid_request_error"),
        ErrorReply(status=403, error_type="permission_error"),
        ErrorReply(status=404, error_type="not_found_error"),
        ErrorReply(status=401, error_type="authentication_error"),
    ],
    ids=["prompt-too-long", "413", "media-too-large", "400", "403", "404", "401-without-refresh"],
)
async def test_client_errors_are_never_retried(turn):
    assert _decide(await raised(turn)).action == "give_up"


async def test_bugs_are_not_model_errors():
    assert _decide(ValueError("a bug")).action == "give_up"


async def test_401_is_retried_once_after_refreshing_credentials():
    exc = await raised(ErrorReply(status=401, error_type="authentication_error"))
    refreshed: list[bool] = []
    context = RetryContext(refresh_credentials=lambda: refreshed.append(True) or True)
    state = RetryState()
    assert _decide(exc, state=state, context=context).action == "retry"
    assert _decide(exc, attempt=2, state=state, context=context).action == "give_up"
    assert refreshed == [True]


async def test_529_three_times_then_fallback_or_give_up():
    exc = await raised(overloaded_error())
    for context, last in [(MAIN, "give_up"), (RetryContext(model="claude-opus-4-6", fallback_model="claude-sonnet-4-6"), "fallback")]:
        state = RetryState()
        actions = [_decide(exc, attempt=i, state=state, context=context).action for i in (1, 2, 3)]
        assert actions == ["retry", "retry", last]


async def test_a_mid_stream_overloaded_event_counts_as_529():
    exc = await raised(Reply(content=[text("hello there")], error_after_events=3, error_type="overloaded_error"))
    state = RetryState()
    context = RetryContext(model="a", fallback_model="b")
    assert [_decide(exc, attempt=i, state=state, context=context).action for i in (1, 2, 3)] == ["retry", "retry", "fallback"]


async def test_other_errors_reset_the_529_count():
    overloaded, server = await raised(overloaded_error()), await raised(ErrorReply(status=500))
    state = RetryState()
    for attempt, exc in enumerate([overloaded, overloaded, server, overloaded, overloaded], start=1):
        assert _decide(exc, attempt=attempt, state=state).action == "retry"


async def test_background_sources_fail_fast_on_529_but_compaction_is_foreground():
    exc = await raised(overloaded_error())
    assert _decide(exc, context=RetryContext(query_source="tool_use_summary")).action == "give_up"
    assert _decide(exc, context=RetryContext(query_source="compact")).action == "retry"
    assert _decide(await raised(ErrorReply(status=500)), context=RetryContext(query_source="tool_use_summary")).action == "retry"


async def test_retry_after_is_honoured():
    assert _decide(await raised(rate_limit_error(retry_after=7))).delay_s == 7.0
    ms = await raised(ErrorReply(status=429, error_type="rate_limit_error", headers={"retry-after-ms": "1500"}))
    assert retry_after_seconds(ms) == 1.5
    when = email.utils.formatdate(time.time() + 30, usegmt=True)
    dated = await raised(ErrorReply(status=429, error_type="rate_limit_error", headers={"retry-after": when}))
    assert 25 <= retry_after_seconds(dated) <= 31
    assert _decide(await raised(rate_limit_error(retry_after=3600))).action == "give_up"


async def test_retries_run_out():
    exc = await raised(ErrorReply(status=500))
    assert _decide(exc, attempt=10).action == "retry"
    assert _decide(exc, attempt=11).action == "give_up"


def test_backoff_doubles_from_500ms_with_jitter_and_a_cap():
    assert [RetryPolicy(random=lambda: 0.0).backoff(a) for a in range(1, 9)] == [0.5, 1, 2, 4, 8, 16, 32, 32]
    assert RetryPolicy(random=lambda: 1.0).backoff(2) == 1.25
