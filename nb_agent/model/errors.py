"""Classify what the SDK (or its HTTP layer) raised into nb_agent's model errors."""

from __future__ import annotations

from typing import Any

from nb_agent.errors import MediaTooLargeError, ModelError, NbAgentError, PromptTooLongError

PROMPT_TOO_LONG_MARKER = "prompt is too long"
MEDIA_TOO_LARGE_MARKERS = ("image exceeds", "image too large", "exceeds the maximum allowed size", "too many images")


def _status(exc: BaseException) -> int | None:
    return getattr(exc, "status_code", None)


def _message(exc: BaseException) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        error = body.get("error")
        if isinstance(error, dict) and error.get("message"):
            return str(error["message"])
    return str(getattr(exc, "message", None) or exc)


def _error_type(exc: BaseException) -> str | None:
    body = getattr(exc, "body", None)
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        return body["error"].get("type")
    return None


def is_transport_error(exc: BaseException) -> bool:
    """A dropped connection or protocol failure from the HTTP layer (not an APIError)."""
    module = type(exc).__module__ or ""
    return module.split(".")[0] in ("httpx", "httpx2", "httpcore", "h11", "anyio") or isinstance(
        exc, (ConnectionError, TimeoutError)
    )


def is_model_api_error(exc: BaseException) -> bool:
    """Anything a model request can fail with that is not a bug in nb_agent."""
    import anthropic

    return isinstance(exc, (anthropic.APIError, ModelError)) or is_transport_error(exc)


def status_of(exc: BaseException) -> int | None:
    """HTTP status; a mid-stream ``error`` event arrives with status 200 — use its type."""
    status = _status(exc)
    kind = _error_type(exc)
    if kind == "overloaded_error":
        return 529
    if kind == "rate_limit_error":
        return 429
    if status == 200 and kind == "api_error":
        return 500
    return status


def classify(exc: BaseException) -> NbAgentError:
    """Map an SDK / transport exception to a typed, readable ``ModelError``."""
    if isinstance(exc, NbAgentError):
        return exc
    status = status_of(exc)
    text = _message(exc)
    lowered = text.lower()
    if status == 413 or (status == 400 and PROMPT_TOO_LONG_MARKER in lowered):
        return PromptTooLongError(f"Prompt is too long: {text}")
    if status == 400 and any(m in lowered for m in MEDIA_TOO_LARGE_MARKERS):
        return MediaTooLargeError(f"Image or document too large: {text}")
    if status == 401:
        return ModelError(f"Authentication failed (401): check ANTHROPIC_API_KEY. {text}")
    if is_transport_error(exc):
        return ModelError(f"Connection error: {type(exc).__name__}: {text or 'connection dropped'}")
    if status is not None:
        return ModelError(f"API Error: {status} {text}")
    return ModelError(f"API Error: {type(exc).__name__}: {text}")


def describe(exc: Any) -> str:
    return str(classify(exc))


def stop_failure_kind(exc: BaseException) -> str:
    """The kind of API error that ended a turn, as the StopFailure hook names it."""
    status = status_of(exc)
    text = _message(exc).lower()
    if status == 429:
        return "rate_limit"
    if status in (401, 403):
        return "authentication_failed"
    if status == 402 or "credit balance" in text or "billing" in text:
        return "billing_error"
    if status is not None and 400 <= status < 500:
        return "invalid_request"
    if status is not None and status >= 500:
        return "server_error"
    return "unknown"
