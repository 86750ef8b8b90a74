"""Streaming a model response: raw SDK events in, stream events and per-block messages out.

A tool_use block is complete at its ``content_block_stop``; it is yielded then, as an
``AssistantMessage`` of its own, so the executor can start the tool while the model is
still streaming the rest of the response (SPEC §3).
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

from nb_agent.errors import ConfigurationError
from nb_agent.messages import AssistantMessage, ContentBlock, StreamEvent
from nb_agent.model.pricing import Usage
from nb_agent.model.provider_clients import provider_client
from nb_agent.model.providers import Provider, provider_from_env
from nb_agent.model.transport import AnthropicTransport, ModelTransport

MALFORMED_INPUT_KEY = "_malformed_input"
"""Set on a tool_use input whose streamed JSON did not parse; the pipeline reports it."""


@dataclass(frozen=True, kw_only=True)
class ModelRequest:
    """One Messages API request, in the SDK's parameter names."""

    model: str
    messages: list[dict[str, Any]]
    max_tokens: int
    system: list[dict[str, Any]] | str | None = None
    tools: list[dict[str, Any]] = field(default_factory=list)
    thinking: dict[str, Any] | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def to_api(self) -> dict[str, Any]:
        body: dict[str, Any] = {"model": self.model, "messages": self.messages, "max_tokens": self.max_tokens}
        if self.system:
            body["system"] = self.system
        if self.tools:
            body["tools"] = self.tools
        if self.thinking:
            body["thinking"] = self.thinking
        body.update(self.extra)
        return body


class _BlockBuilder:
    __slots__ = ("block", "parts")

    def __init__(self, block: ContentBlock) -> None:
        self.block = block
        self.parts: list[str] = []

    def finish(self) -> ContentBlock:
        block = self.block
        kind = block.get("type")
        joined = "".join(self.parts)
        if kind == "text":
            block["text"] = block.get("text", "") + joined
        elif kind == "thinking":
            block["thinking"] = block.get("thinking", "") + joined
        elif kind in ("tool_use", "server_tool_use"):
            if joined:
                try:
                    parsed = json.loads(joined)
                except json.JSONDecodeError:
                    parsed = {MALFORMED_INPUT_KEY: joined}
                block["input"] = parsed if isinstance(parsed, dict) else {MALFORMED_INPUT_KEY: joined}
            elif not isinstance(block.get("input"), dict):
                block["input"] = {}
        return block


def _start_block(content_block: Any) -> ContentBlock:
    kind = content_block.type
    if kind == "text":
        block: ContentBlock = {"type": "text", "text": content_block.text or ""}
        if getattr(content_block, "citations", None):
            block["citations"] = [c.model_dump(mode="json", exclude_none=True) for c in content_block.citations]
        return block
    if kind == "tool_use":
        return {"type": "tool_use", "id": content_block.id, "name": content_block.name, "input": {}}
    if kind == "thinking":
        return {"type": "thinking", "thinking": content_block.thinking or "", "signature": content_block.signature or ""}
    return content_block.model_dump(mode="json", exclude_none=True)


@dataclass(kw_only=True)
class ResponseAccumulator:
    """Turns raw events into per-block ``AssistantMessage``s; tracks stop reason and usage."""

    model: str
    message_id: str = ""
    request_id: str | None = None
    stop_reason: str | None = None
    usage: Usage = field(default_factory=Usage)
    blocks: dict[int, _BlockBuilder] = field(default_factory=dict)
    last_uuid: str | None = None
    """The uuid of the last block message made (the usage anchor of a complete response)."""
    streamed_chars: int = 0
    """Characters of text, thinking and tool input streamed so far (an output estimate
    until the API reports the output tokens, in ``message_delta`` at the response's end)."""
    output_reported: bool = False
    """Whether a ``message_delta`` has reported the output tokens."""

    def on_event(self, event: Any) -> AssistantMessage | None:
        kind = event.type
        if kind == "content_block_delta":
            delta = event.delta
            builder = self.blocks[event.index]
            dkind = delta.type
            if dkind == "text_delta":
                builder.parts.append(delta.text)
                self.streamed_chars += len(delta.text)
            elif dkind == "input_json_delta":
                builder.parts.append(delta.partial_json)
                self.streamed_chars += len(delta.partial_json)
            elif dkind == "thinking_delta":
                builder.parts.append(delta.thinking)
                self.streamed_chars += len(delta.thinking)
            elif dkind == "signature_delta":
                builder.block["signature"] = delta.signature
            elif dkind == "citations_delta":  # a cited text block (web search): keep every citation
                citation = delta.citation
                builder.block.setdefault("citations", []).append(
                    citation if isinstance(citation, dict) else citation.model_dump(mode="json", exclude_none=True)
                )
            return None
        if kind == "content_block_start":
            self.blocks[event.index] = _BlockBuilder(_start_block(event.content_block))
            return None
        if kind == "content_block_stop":
            block = self.blocks.pop(event.index).finish()
            message = AssistantMessage(content=[block], message_id=self.message_id, model=self.model, request_id=self.request_id)
            self.last_uuid = message.uuid
            return message
        if kind == "message_start":
            message = event.message
            self.message_id = message.id
            self.model = message.model or self.model
            self.usage = _usage_from(message.usage, Usage())
        elif kind == "message_delta":
            self.stop_reason = event.delta.stop_reason
            self.usage = _usage_from(event.usage, self.usage)
            self.output_reported = self.output_reported or getattr(event.usage, "output_tokens", None) is not None
        return None


def _usage_from(raw: Any, base: Usage) -> Usage:
    """Usage counts in a message_delta are cumulative: overwrite, keep absent ones."""

    def pick(name: str, current: int) -> int:
        value = getattr(raw, name, None)
        return current if value is None else int(value)

    return Usage(
        input_tokens=pick("input_tokens", base.input_tokens),
        output_tokens=pick("output_tokens", base.output_tokens),
        cache_creation_input_tokens=pick("cache_creation_input_tokens", base.cache_creation_input_tokens),
        cache_read_input_tokens=pick("cache_read_input_tokens", base.cache_read_input_tokens),
    )


ModelStreamItem = StreamEvent | AssistantMessage


async def stream_response(
    transport: ModelTransport,
    request: ModelRequest,
    *,
    accumulator: ResponseAccumulator | None = None,
    on_end: Callable[[ResponseAccumulator], None] | None = None,
) -> AsyncIterator[ModelStreamItem]:
    """Stream one request: every raw event as a ``StreamEvent``, each block as it completes.

    ``on_end(accumulator)`` runs when the stream ends, fails or is closed (usage
    accounting); a callback rather than a wrapping generator, which would cost a layer
    per event."""
    acc = accumulator or ResponseAccumulator(model=request.model)
    try:
        async for event in transport.stream(request.to_api()):
            message = acc.on_event(event)
            yield StreamEvent(event=event)
            if message is not None:
                yield message
    finally:
        if on_end is not None:
            on_end(acc)


def has_credentials(provider: Provider | None = None) -> bool:
    """Whether the environment holds credentials for ``provider`` (the environment's by
    default). Cloud credentials may also come from files (AWS profiles, Google ADC): then
    the SDK client decides, and a missing one fails at the first request."""
    provider = provider or provider_from_env()
    env = os.environ
    if provider is Provider.FIRST_PARTY:
        return bool(env.get("ANTHROPIC_API_KEY") or env.get("ANTHROPIC_AUTH_TOKEN"))
    if provider is Provider.FOUNDRY:
        return bool(env.get("ANTHROPIC_FOUNDRY_API_KEY"))
    return True


def default_transport_factory(provider: Provider | None = None) -> ModelTransport:
    """The real SDK transport for ``provider`` (or the cassette ``NB_AGENT_CASSETTE``
    names); fails early and clearly when no credentials are set."""
    from nb_agent.model.cassette import cassette_from_env

    provider = provider or provider_from_env()
    cassette = cassette_from_env(has_api_key=has_credentials(provider), live_factory=lambda: _live_transport(provider))
    if cassette is not None:
        return cassette
    return _live_transport(provider)


def _live_transport(provider: Provider | None = None) -> ModelTransport:
    provider = provider or provider_from_env()
    if provider is Provider.FIRST_PARTY and not has_credentials(provider):
        raise ConfigurationError(
            "No Anthropic API key found. In a notebook, run `%env ANTHROPIC_API_KEY=sk-ant-...` in a cell, "
            "then this cell again (no restart needed); elsewhere, set the ANTHROPIC_API_KEY environment variable "
            "(or ANTHROPIC_AUTH_TOKEN). `%agent cassette NAME` replays a recorded session without a key."
        )
    return AnthropicTransport(client_factory=lambda: provider_client(provider))


TransportFactory = Callable[[], ModelTransport]
