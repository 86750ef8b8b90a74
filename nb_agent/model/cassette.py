"""Record and replay model traffic (the project's "VCR").

A cassette is a JSON file of interactions: the request (normalized) and the response as
the raw streaming events the SDK produced (or the error it raised). Replay yields the
same SDK event objects through the same client code as a live call, and first checks
that the request matches the recorded one, failing with a diff when the conversation
has diverged (a demo whose code changed is caught, not replayed as nonsense).

Selected by ``NB_AGENT_CASSETTE=path`` and ``NB_AGENT_CASSETTE_MODE`` =
``record`` | ``replay`` | ``auto`` (default ``auto``: replay when the cassette exists and
no API key is set, else record).
"""

from __future__ import annotations

import difflib
import json
import os
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, Literal

from nb_agent.errors import ConfigurationError, ModelError

CASSETTE_ENV = "NB_AGENT_CASSETTE"
CASSETTE_MODE_ENV = "NB_AGENT_CASSETTE_MODE"
CASSETTE_VERSION = 1

CassetteMode = Literal["record", "replay", "auto"]


class CassetteMismatchError(ModelError):
    """The request differs from the recorded one: the conversation diverged."""


_UUID = re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b")
_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
_DURATION = re.compile(r"\b\d+(?:\.\d+)?\s?(?:ms|s)\b")
_TMP = re.compile(r"/tmp/[\w.\-/]+")


class Normalizer:
    """Replaces machine- and run-specific text (paths, ids, dates, timings)."""

    def __init__(self, *, cwd: Path | None = None, home: Path | None = None) -> None:
        self.replacements: list[tuple[str, str]] = []
        for path, token in ((cwd, "<CWD>"), (home or Path.home(), "<HOME>")):
            if path is not None and str(path) not in ("/", ""):
                self.replacements.append((str(path), token))
        # longest first so <CWD> wins over <HOME> when cwd is inside home
        self.replacements.sort(key=lambda pair: -len(pair[0]))

    def text(self, value: str) -> str:
        for raw, token in self.replacements:
            value = value.replace(raw, token)
        value = _UUID.sub("<UUID>", value)
        value = _DATE.sub("<DATE>", value)
        value = _DURATION.sub("<DURATION>", value)
        return _TMP.sub("<TMP>", value)

    def value(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, list):
            return [self.value(v) for v in value]
        if isinstance(value, dict):
            return {k: self.value(v) for k, v in value.items() if k not in ("cache_control", "signature")}
        return value


def matchable(request: dict[str, Any], normalizer: Normalizer) -> dict[str, Any]:
    """The parts of a request that must match on replay: messages and tool names."""
    return {
        "messages": normalizer.value(request.get("messages", [])),
        "tools": sorted(t.get("name", "") for t in request.get("tools", [])),
    }


def _diff(expected: dict[str, Any], actual: dict[str, Any]) -> str:
    a = json.dumps(expected, indent=1, sort_keys=True, ensure_ascii=False).splitlines()
    b = json.dumps(actual, indent=1, sort_keys=True, ensure_ascii=False).splitlines()
    lines = list(difflib.unified_diff(a, b, "recorded request", "this request", lineterm="", n=2))
    return "\n".join(lines[:80]) + ("\n…" if len(lines) > 80 else "")


def _event_adapter() -> Any:
    from anthropic.types import RawMessageStreamEvent
    from pydantic import TypeAdapter

    return TypeAdapter(RawMessageStreamEvent)


def _error_record(exc: BaseException) -> dict[str, Any]:
    status = getattr(exc, "status_code", None)
    response = getattr(exc, "response", None)
    headers = dict(response.headers) if response is not None and status else {}
    return {"status": status, "body": getattr(exc, "body", None), "message": str(exc), "class": type(exc).__name__, "headers": headers}


def _raise_recorded(error: dict[str, Any]) -> None:
    import anthropic

    try:
        import httpx2 as http
    except ImportError:  # pragma: no cover
        import httpx as http  # type: ignore[no-redef]
    request = http.Request("POST", "https://api.anthropic.com/v1/messages")
    status = error.get("status")
    if status is None:
        raise anthropic.APIConnectionError(message=error.get("message") or "Connection error.", request=request)
    from anthropic._error_classes import make_status_error

    response = http.Response(status, headers=error.get("headers") or {}, request=request)
    raise make_status_error(error.get("message") or "", body=error.get("body"), response=response)


class CassetteTransport:
    """A ``ModelTransport`` that records another transport's traffic, or replays it."""

    def __init__(
        self,
        path: Path,
        *,
        mode: Literal["record", "replay"],
        inner: Any = None,
        normalizer: Normalizer | None = None,
    ) -> None:
        if mode == "record" and inner is None:
            raise ConfigurationError("recording a cassette needs a live transport (set ANTHROPIC_API_KEY)")
        self.path = path
        self.mode = mode
        self.inner = inner
        self.normalizer = normalizer or Normalizer(cwd=Path.cwd())
        self.interactions: list[dict[str, Any]] = []
        self._cursor = 0
        if mode == "replay":
            if not path.exists():
                raise ConfigurationError(f"No cassette to replay at {path}")
            data = json.loads(path.read_text(encoding="utf-8"))
            self.interactions = data.get("interactions", [])

    # --- replay ---------------------------------------------------------------------------
    def _next(self, request: dict[str, Any], kind: str) -> dict[str, Any]:
        if self._cursor >= len(self.interactions):
            raise CassetteMismatchError(
                f"The cassette {self.path.name} has no interaction #{self._cursor + 1}: the conversation went "
                "further than when it was recorded. Re-record it (NB_AGENT_CASSETTE_MODE=record)."
            )
        interaction = self.interactions[self._cursor]
        self._cursor += 1
        actual = matchable(request, self.normalizer)
        if interaction["request"] != actual or interaction["kind"] != kind:
            raise CassetteMismatchError(
                f"Request #{self._cursor} differs from the one recorded in {self.path.name}; the conversation "
                f"diverged. Re-record the cassette if the change is intended.\n{_diff(interaction['request'], actual)}"
            )
        return interaction

    # --- record ---------------------------------------------------------------------------
    def _save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(self.path.suffix + ".tmp")
        payload = {"version": CASSETTE_VERSION, "interactions": self.interactions}
        tmp.write_text(json.dumps(payload, indent=1, ensure_ascii=False), encoding="utf-8")
        os.replace(tmp, self.path)

    def _record(self, request: dict[str, Any], kind: str, **response: Any) -> None:
        self.interactions.append({"kind": kind, "request": matchable(request, self.normalizer), **response})
        self._save()

    # --- the transport ----------------------------------------------------------------------
    async def stream(self, request: dict[str, Any]) -> AsyncIterator[Any]:
        if self.mode == "replay":
            interaction = self._next(request, "stream")
            adapter = _event_adapter()
            for event in interaction["events"]:
                yield adapter.validate_python(event)
            if interaction.get("error"):
                _raise_recorded(interaction["error"])
            return
        events: list[dict[str, Any]] = []
        try:
            async for event in self.inner.stream(request):
                events.append(event.model_dump(mode="json", exclude_none=True))
                yield event
        except Exception as exc:
            self._record(request, "stream", events=events, error=_error_record(exc))
            raise
        self._record(request, "stream", events=events, error=None)

    async def create(self, request: dict[str, Any]) -> Any:
        from anthropic.types import Message

        if self.mode == "replay":
            interaction = self._next(request, "create")
            if interaction.get("error"):
                _raise_recorded(interaction["error"])
            return Message.model_validate(interaction["message"])
        try:
            message = await self.inner.create(request)
        except Exception as exc:
            self._record(request, "create", message=None, error=_error_record(exc))
            raise
        self._record(request, "create", message=message.model_dump(mode="json", exclude_none=True), error=None)
        return message

    def assert_used_up(self) -> None:
        """Replay: every recorded interaction was requested."""
        if self.mode == "replay" and self._cursor != len(self.interactions):
            raise CassetteMismatchError(
                f"{len(self.interactions) - self._cursor} recorded interaction(s) in {self.path.name} were never requested"
            )


def cassette_from_env(*, has_api_key: bool, live_factory: Any) -> CassetteTransport | None:
    """The cassette transport that ``NB_AGENT_CASSETTE`` asks for, if any."""
    path_text = os.environ.get(CASSETTE_ENV)
    if not path_text:
        return None
    path = Path(path_text).expanduser()
    mode = os.environ.get(CASSETTE_MODE_ENV, "auto")
    if mode not in ("record", "replay", "auto"):
        raise ConfigurationError(f"{CASSETTE_MODE_ENV} must be record, replay or auto (got {mode!r})")
    if mode == "auto":
        mode = "replay" if path.exists() and not has_api_key else "record"
    if mode == "record":
        return CassetteTransport(path, mode="record", inner=live_factory())
    return CassetteTransport(path, mode="replay")
