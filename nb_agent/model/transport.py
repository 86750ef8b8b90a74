"""Where raw streaming events come from: the anthropic SDK, or a test double.

The model client consumes an async iterator of the SDK's ``RawMessageStreamEvent``
objects, so the real SDK and the in-process scripted model share every line of
accumulation and loop code.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from typing import Any, Protocol

import anthropic
from anthropic.types import Message, RawMessageStreamEvent


class ModelTransport(Protocol):
    """Streams one Messages API request as raw events; raises the SDK's exceptions."""

    def stream(self, request: dict[str, Any]) -> AsyncIterator[RawMessageStreamEvent]: ...

    async def create(self, request: dict[str, Any]) -> Any:
        """A non-streaming request (summaries, compaction); returns an SDK ``Message``."""
        ...


class AnthropicTransport:
    """The real transport: ``anthropic.AsyncAnthropic`` (or a cloud provider's client from
    ``client_factory``, see :mod:`nb_agent.model.provider_clients`) with the SDK's own env handling.

    ``ANTHROPIC_API_KEY`` / ``ANTHROPIC_AUTH_TOKEN`` / ``ANTHROPIC_BASE_URL`` are read by
    the SDK exactly as it always does; nb_agent never overrides a base URL the user set.
    Retries are nb_agent's (``nb_agent.model.retry``), so the SDK's are turned off.
    """

    def __init__(self, client: Any = None, *, client_factory: Callable[[], Any] | None = None, **client_kwargs: Any) -> None:
        self._client = client
        self._client_factory = client_factory
        self._client_kwargs = client_kwargs

    @property
    def client(self) -> Any:
        if self._client is None:
            if self._client_factory is not None:
                self._client = self._client_factory()
            else:
                import anthropic

                self._client = anthropic.AsyncAnthropic(max_retries=0, **self._client_kwargs)
        return self._client

    async def stream(self, request: dict[str, Any]) -> AsyncIterator[RawMessageStreamEvent]:
        client = self.client
        if type(client) is anthropic.AsyncAnthropic:
            response = await client.post(
                "/v1/messages", cast_to=Message, content=_json_body({**request, "stream": True}), stream=True,
                stream_cls=anthropic.AsyncStream[RawMessageStreamEvent],
            )  # fmt: skip
        else:  # a cloud client reads the body as data to build its URL (the model, the stream flag)
            response = await client.messages.create(**request, stream=True)
        try:
            async for event in response:
                yield event
        finally:
            await response.close()

    async def create(self, request: dict[str, Any]) -> Any:
        return await self.client.messages.create(**request)


def _json_body(request: dict[str, Any]) -> bytes:
    """The request as the SDK would send it (compact UTF-8 JSON).

    Given as data, the SDK first copies every dict and list of it (the whole conversation,
    on every request) before encoding it: in a long session those small objects made the
    peak that opened new pymalloc arenas, which objects kept by the kernel then hold after
    ``%agent new`` (``bench/kernel_memory.py``). Sent as content, it is encoded once.
    """
    return json.dumps(request, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()
