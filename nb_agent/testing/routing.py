"""A script for conversations that run side by side (subagents): turns by route.

Parallel subagents call the model in an order nobody controls, so one ordered list of
turns cannot script them. A :class:`RoutedScript` keeps one list per route; a request
goes to the first route whose key appears in the text of one of its user turns (the
subagent's prompt), else to the default route ``""`` (the main agent)::

    script = RoutedScript({
        "": [Reply(content=[tool_use("Agent", {..., "prompt": "[sales] count rows"}), ...]), ...],
        "[sales]": [Reply(content=[tool_use("Read", ...)]), Reply(content=[text("12 rows")])],
    })
"""

from __future__ import annotations

import copy
from collections import deque
from collections.abc import Iterable, Mapping
from typing import Any

from nb_agent.testing.script import ErrorReply, Reply, Script, ScriptExhaustedError, Turn


def user_texts(request: dict[str, Any]) -> list[str]:
    """The plain text of the request's user turns (not tool results)."""
    texts: list[str] = []
    for message in request.get("messages") or []:
        if message.get("role") != "user":
            continue
        content = message.get("content")
        if isinstance(content, str):
            texts.append(content)
        elif isinstance(content, list):
            texts += [b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text"]
    return texts


class RoutedScript(Script):
    """One queue of turns per route key; see the module docstring."""

    def __init__(self, routes: Mapping[str, Iterable[Turn]]) -> None:
        super().__init__()
        self._routes: dict[str, deque[Turn]] = {key: deque(turns) for key, turns in routes.items()}
        self._routes.setdefault("", deque())
        self.requests_by_route: dict[str, list[dict[str, Any]]] = {key: [] for key in self._routes}

    def route_of(self, request: dict[str, Any]) -> str:
        texts = user_texts(request)
        for key in self._routes:
            if key and any(key in t for t in texts):
                return key
        return ""

    def add_to(self, key: str, *turns: Turn) -> None:
        with self._lock:
            self._routes.setdefault(key, deque()).extend(turns)
            self.requests_by_route.setdefault(key, [])

    def add(self, *turns: Turn) -> None:
        self.add_to("", *turns)

    @property
    def remaining(self) -> int:
        return sum(len(q) for q in self._routes.values())

    def next_turn(self, request: dict[str, Any]) -> Reply | ErrorReply:
        body = copy.deepcopy(request)
        key = self.route_of(body)
        with self._lock:
            self.requests.append(body)
            self.requests_by_route[key].append(body)
            queue = self._routes[key]
            turn = queue.popleft() if queue else None
        if turn is None:
            raise ScriptExhaustedError(f"route {key!r} has no turn left for request #{len(self.requests)}")
        if isinstance(turn, (Reply, ErrorReply)):
            return turn
        return turn(copy.deepcopy(body))

    def assert_exhausted(self) -> None:
        left = {key: len(q) for key, q in self._routes.items() if q}
        if left:
            raise AssertionError(f"scripted turns never used, by route: {left}")
