"""Where raw streaming events come from: the anthropic SDK, or a test double.

The model client consumes an async iterator of the SDK's ``RawMessageStreamEvent``
objects, so the real SDK and the in-process scripted model share every line of
accumulation and loop code.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any, Protocol

from anthropic.types import RawMessageStreamEvent


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
        response = await self.client.messages.create(**request, stream=True)
        try:
            async for event in response:
                yield event
        finally:
            await response.close()

    async def create(self, request: dict[str, Any]) -> Any:
        return await self.client.messages.create(**request)
