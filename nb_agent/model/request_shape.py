"""What every request of a run has in common besides its messages, and building one.

A run's requests share their system blocks, the messages sent before the history (the
memory reminder, the skill list), how tool definitions are made from the pool, the model
and whether cache breakpoints are marked. :class:`RequestShape` holds these, and
:meth:`RequestShape.request` builds a request from a window of messages exactly as the
loop sends it. A fork subagent's requests and a compaction's summary request are built
from the same shape, so their prefix is byte for byte the conversation's and is read from
the prompt cache (seed 003 §3.7).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from nb_agent.messages import ApiHistory, normalize_for_api
from nb_agent.model.client import ModelRequest
from nb_agent.model.prompt_cache import (
    MAX_BREAKPOINTS,
    count_breakpoints,
    with_message_breakpoints,
    without_cache_control,
)

__all__ = ["DefinitionCache", "RequestShape", "ToolDefinitions"]

ToolDefinitions = Callable[[Sequence[Any], list[Any]], list[dict[str, Any]]]
"""Builds the request's ``tools`` from the pool and the window (ToolSearch defers some)."""


class DefinitionCache:
    """Tool definitions built once per submission: a pydantic JSON schema takes milliseconds
    to generate, and every request of every turn sends the whole tool list."""

    def __init__(self) -> None:
        self._by_tool: dict[int, tuple[Any, dict[str, Any]]] = {}

    def get(self, tool: Any) -> dict[str, Any]:
        hit = self._by_tool.get(id(tool))
        if hit is None or hit[0] is not tool:
            hit = self._by_tool[id(tool)] = (tool, tool.to_api_definition())
        return hit[1]


@dataclass(frozen=True, kw_only=True)
class RequestShape:
    """A run's requests apart from their messages."""

    model: str
    system: list[dict[str, Any]] | str | None = None
    prepend_messages: list[Any] = field(default_factory=list)
    tool_definitions: ToolDefinitions | None = None
    prompt_caching: bool = True
    thinking: dict[str, Any] | None = None

    def tools_for(self, tools: Sequence[Any], window: list[Any], cache: DefinitionCache | None = None) -> list[dict[str, Any]]:
        if self.tool_definitions is not None:
            return self.tool_definitions(tools, window)
        if cache is None:
            return [t.to_api_definition() for t in tools]
        return [cache.get(t) for t in tools]

    def request(
        self,
        window: list[Any],
        tools: Sequence[Any],
        *,
        max_tokens: int,
        model: str | None = None,
        definitions: DefinitionCache | None = None,
        api_history: ApiHistory | None = None,
    ) -> ModelRequest:
        """The request for ``window`` (the history after the last compact boundary)."""
        history = [*self.prepend_messages, *window]
        messages = api_history.normalize(history) if api_history is not None else normalize_for_api(history)
        system = self.system
        if self.prompt_caching:
            # normalizing makes a new list per request: marked in place
            messages = with_message_breakpoints(messages, budget=MAX_BREAKPOINTS - count_breakpoints({"system": system}), in_place=True)
        else:
            system = without_cache_control(system)
        return ModelRequest(
            model=model or self.model,
            messages=messages,
            max_tokens=max_tokens,
            system=system,
            tools=self.tools_for(tools, window, definitions),
            thinking=self.thinking,
        )
