"""Record and replay model traffic (the project's "VCR").

A cassette is a JSON file of interactions: the request (normalized) and the response as
the raw streaming events the SDK produced (or the error it raised). Replay yields the
same SDK event objects through the same client code as a live call, and first checks
that the request matches the recorded one, failing with a diff when the conversation
has diverged (a demo whose code changed is caught, not replayed as nonsense).

Selected by ``NB_AGENT_CASSETTE=path`` and ``NB_AGENT_CASSETTE_MODE`` =
``record`` | ``replay`` | ``auto`` (default ``auto``: replay when the cassette exists and
no API key is set, else record). One process plays one cassette from start to end: every
engine it creates (a resumed session, a new conversation) continues the same recording.

Portable across machines and clones: requests are compared after normalizing paths,
ids, dates and timings, and images by media type only (their bytes depend on library
versions). In the recorded responses the working directory is stored as ``<CWD>`` and
put back on replay, so a model that named absolute paths replays from any directory.
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
_ADDRESS = re.compile(r"\bat 0x[0-9a-fA-F]{4,16}\b")
"""A repr's memory address (``<Figure at 0x7f3a…>``)."""
_NEW_CELL_ID = re.compile(r"\b(Inserted cell) [0-9a-f]{8}\b")
"""The random id of a cell NotebookEdit inserted (nbformat makes one per cell)."""
CWD_TOKEN = "<CWD>"
IMAGE_DATA_TOKEN = "<IMAGE DATA>"


class Normalizer:
    """Replaces machine- and run-specific text (paths, ids, dates, timings).

    ``cwd=None`` means the process's working directory at each call (a notebook may
    change directory after the cassette is opened)."""

    def __init__(self, *, cwd: Path | None = None, home: Path | None = None) -> None:
        self.cwd = cwd
        self.home = home or Path.home()

    @property
    def replacements(self) -> list[tuple[str, str]]:
        pairs = []
        for path, token in ((self.cwd or _cwd(), CWD_TOKEN), (self.home, "<HOME>")):
            if path is not None and str(path) not in ("/", ""):
                pairs.append((str(path), token))
        # longest first so <CWD> wins over <HOME> when cwd is inside home
        return sorted(pairs, key=lambda pair: -len(pair[0]))

    def text(self, value: str) -> str:
        for raw, token in self.replacements:
            value = value.replace(raw, token)
        value = _UUID.sub("<UUID>", value)
        value = _DATE.sub("<DATE>", value)
        value = _DURATION.sub("<DURATION>", value)
        value = _ADDRESS.sub("at <ADDRESS>", value)
        value = _NEW_CELL_ID.sub(r"\1 <CELL ID>", value)
        return _TMP.sub("<TMP>", value)

    def value(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, list):
            return [self.value(v) for v in value]
        if isinstance(value, dict):
            if value.get("type") == "base64" and isinstance(value.get("data"), str):
                return {**value, "data": IMAGE_DATA_TOKEN}  # PNG bytes differ across library versions
            return {k: self.value(v) for k, v in value.items() if k not in ("cache_control", "signature")}
        return value


def _cwd() -> Path | None:
    try:
        return Path.cwd()
    except OSError:  # the directory was removed
        return None


# --- the working directory in recorded responses ----------------------------------------------


def _replace_strings(value: Any, old: str, new: str) -> Any:
    if isinstance(value, str):
        return value.replace(old, new)
    if isinstance(value, list):
        return [_replace_strings(v, old, new) for v in value]
    if isinstance(value, dict):
        return {k: _replace_strings(v, old, new) for k, v in value.items()}
    return value


def _delta_field(delta: dict[str, Any]) -> str | None:
    return {"text_delta": "text", "input_json_delta": "partial_json"}.get(delta.get("type", ""))


def _json_escaped(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)[1:-1]


def tokenize_cwd_in_events(events: list[dict[str, Any]], cwd: Path | None) -> list[dict[str, Any]]:
    """Recorded stream events with ``cwd`` written as ``<CWD>``. A block whose text or tool
    input names the directory is stored as one delta (a path may straddle two chunks)."""
    if cwd is None or str(cwd) in ("/", ""):
        return events
    raw = str(cwd)
    by_block: dict[int, list[int]] = {}
    for position, event in enumerate(events):
        if event.get("type") == "content_block_delta" and _delta_field(event.get("delta", {})):
            by_block.setdefault(event.get("index", 0), []).append(position)
    drop: set[int] = set()
    merged: dict[int, dict[str, Any]] = {}
    for positions in by_block.values():
        first = events[positions[0]]["delta"]
        name = _delta_field(first)
        assert name is not None
        joined = "".join(events[p]["delta"].get(name, "") for p in positions)
        needle = raw if name == "text" else _json_escaped(raw)
        if needle not in joined:
            continue
        merged[positions[0]] = {**events[positions[0]], "delta": {**first, name: joined.replace(needle, CWD_TOKEN)}}
        drop.update(positions[1:])
    return [merged.get(p, e) for p, e in enumerate(events) if p not in drop]


def expand_cwd_in_event(event: dict[str, Any], cwd: Path | None) -> dict[str, Any]:
    """A recorded event with ``<CWD>`` replaced by this process's directory."""
    if cwd is None or event.get("type") != "content_block_delta":
        return event
    delta = event.get("delta", {})
    name = _delta_field(delta)
    if name is None or CWD_TOKEN not in delta.get(name, ""):
        return event
    value = str(cwd) if name == "text" else _json_escaped(str(cwd))
    return {**event, "delta": {**delta, name: delta[name].replace(CWD_TOKEN, value)}}


def _single_text_as_string(messages: Any) -> Any:
    """A message whose content is one plain text block, written as a string: a prompt-cache
    breakpoint turns a string into such a block, which must not count as a divergence."""
    if not isinstance(messages, list):
        return messages
    out = []
    for message in messages:
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list) and len(content) == 1 and isinstance(content[0], dict) and set(content[0]) == {"type", "text"} and content[0]["type"] == "text":
            message = {**message, "content": content[0]["text"]}
        out.append(message)
    return out


def matchable(request: dict[str, Any], normalizer: Normalizer) -> dict[str, Any]:
    """The parts of a request that must match on replay: messages and tool names."""
    return {
        "messages": _single_text_as_string(normalizer.value(request.get("messages", []))),
        "tools": sorted(t.get("name", "") for t in request.get("tools", [])),
    }


def _recorded(request: dict[str, Any]) -> dict[str, Any]:
    """A recorded request in today's canonical form (cassettes recorded before it)."""
    return {**request, "messages": _single_text_as_string(request.get("messages", []))}


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

    from nb_agent.model.sdk_http import sdk_http as http

    request = http.Request("POST", "https://api.anthropic.com/v1/messages")
    status = error.get("status")
    if status is None:
        raise anthropic.APIConnectionError(message=error.get("message") or "Connection error.", request=request)
    from anthropic._error_classes import make_status_error

    response = http.Response(status, headers=error.get("headers") or {}, request=request)
    raise make_status_error(error.get("message") or "", body=error.get("body"), response=response)


def read_interactions(path: Path) -> list[dict[str, Any]]:
    """The recorded interactions of the cassette at ``path``."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ConfigurationError(f"cannot read the cassette {path}: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("interactions"), list):
        raise ConfigurationError(f"{path} is not a cassette (no interactions list)")
    return data["interactions"]


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
        self._played: set[int] = set()
        if mode == "replay":
            if not path.exists():
                raise ConfigurationError(f"No cassette to replay at {path}")
            self.interactions = read_interactions(path)

    # --- replay ---------------------------------------------------------------------------
    def _next(self, request: dict[str, Any], kind: str) -> dict[str, Any]:
        """The recorded interaction for ``request``: the next one in order, or, when
        requests ran side by side (parallel subagents finish in any order), the first
        unplayed one recorded with exactly this request."""
        unplayed = [i for i in range(len(self.interactions)) if i not in self._played]
        if not unplayed:
            raise CassetteMismatchError(
                f"The cassette {self.path.name} has no interaction #{len(self._played) + 1}: the conversation went "
                "further than when it was recorded. Re-record it (NB_AGENT_CASSETTE_MODE=record)."
            )
        actual = matchable(request, self.normalizer)
        index = next(
            (i for i in unplayed if _recorded(self.interactions[i]["request"]) == actual and self.interactions[i]["kind"] == kind),
            None,
        )
        if index is None:
            expected = _recorded(self.interactions[unplayed[0]]["request"])
            raise CassetteMismatchError(
                f"Request #{len(self._played) + 1} differs from the one recorded in {self.path.name}; the conversation "
                f"diverged. Re-record the cassette if the change is intended.\n{_diff(expected, actual)}"
            )
        self._played.add(index)
        self._cursor = len(self._played)
        return self.interactions[index]

    def _response_cwd(self) -> Path | None:
        return self.normalizer.cwd or _cwd()

    def _portable(self, events: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return tokenize_cwd_in_events(events, self._response_cwd())

    @property
    def played(self) -> int:
        """Interactions replayed (or recorded) so far."""
        return self._cursor if self.mode == "replay" else len(self.interactions)

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
            cwd = self._response_cwd()
            for event in interaction["events"]:
                yield adapter.validate_python(expand_cwd_in_event(event, cwd))
            if interaction.get("error"):
                _raise_recorded(interaction["error"])
            return
        events: list[dict[str, Any]] = []
        try:
            async for event in self.inner.stream(request):
                events.append(event.model_dump(mode="json", exclude_none=True))
                yield event
        except Exception as exc:
            self._record(request, "stream", events=self._portable(events), error=_error_record(exc))
            raise
        self._record(request, "stream", events=self._portable(events), error=None)

    async def create(self, request: dict[str, Any]) -> Any:
        from anthropic.types import Message

        if self.mode == "replay":
            interaction = self._next(request, "create")
            if interaction.get("error"):
                _raise_recorded(interaction["error"])
            cwd = self._response_cwd()
            message = interaction["message"]
            return Message.model_validate(_replace_strings(message, CWD_TOKEN, str(cwd)) if cwd else message)
        try:
            message = await self.inner.create(request)
        except Exception as exc:
            self._record(request, "create", message=None, error=_error_record(exc))
            raise
        dumped = message.model_dump(mode="json", exclude_none=True)
        cwd = self._response_cwd()
        if cwd is not None and str(cwd) not in ("/", ""):
            dumped = _replace_strings(dumped, str(cwd), CWD_TOKEN)
        self._record(request, "create", message=dumped, error=None)
        return message

    def assert_used_up(self) -> None:
        """Replay: every recorded interaction was requested."""
        if self.mode == "replay" and self._cursor != len(self.interactions):
            raise CassetteMismatchError(
                f"{len(self.interactions) - self._cursor} recorded interaction(s) in {self.path.name} were never requested"
            )


_OPEN: dict[Path, CassetteTransport] = {}
"""The cassettes this process plays, by absolute path (see :func:`cassette_from_env`)."""


def resolve_mode(path: Path, *, has_api_key: bool, mode: str | None = None) -> Literal["record", "replay"]:
    """``mode`` (default ``$NB_AGENT_CASSETTE_MODE``, else ``auto``) made concrete."""
    mode = mode or os.environ.get(CASSETTE_MODE_ENV, "") or "auto"
    if mode not in ("record", "replay", "auto"):
        raise ConfigurationError(f"{CASSETTE_MODE_ENV} must be record, replay or auto (got {mode!r})")
    if mode == "auto":
        return "replay" if path.exists() and not has_api_key else "record"
    return mode


def open_cassette(path: Path, *, mode: Literal["record", "replay"], live_factory: Any) -> CassetteTransport:
    """The process's transport for ``path``: the open one if there is one in this mode,
    so every engine continues the same recording (a cursor that restarted would replay
    the first answer again; a second recorder would overwrite the first)."""
    key = path.expanduser().absolute()
    current = _OPEN.get(key)
    if current is not None and current.mode == mode:
        return current
    transport = CassetteTransport(key, mode=mode, inner=live_factory() if mode == "record" else None)
    _OPEN[key] = transport
    return transport


def close_cassette(path: Path) -> None:
    """Forget the open transport for ``path``: the next engine starts it from the beginning."""
    _OPEN.pop(path.expanduser().absolute(), None)


def open_cassettes() -> dict[Path, CassetteTransport]:
    return dict(_OPEN)


def cassette_from_env(*, has_api_key: bool, live_factory: Any) -> CassetteTransport | None:
    """The cassette transport that ``NB_AGENT_CASSETTE`` asks for, if any."""
    path_text = os.environ.get(CASSETTE_ENV)
    if not path_text:
        return None
    path = Path(path_text).expanduser()
    return open_cassette(path, mode=resolve_mode(path, has_api_key=has_api_key), live_factory=live_factory)
