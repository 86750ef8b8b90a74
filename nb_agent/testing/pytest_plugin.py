"""Pytest fixtures for testing with nb_agent's doubles.

Load with ``pytest_plugins = ["nb_agent.testing.pytest_plugin"]``. The autouse
``no_real_anthropic`` fixture fails any test that tries to reach a non-loopback host
through the SDK's HTTP client, and clears the Anthropic credentials from the
environment so nothing can authenticate by accident. It also clears the variables that
choose a provider or a model (``CLAUDE_CODE_USE_*``, ``ANTHROPIC_MODEL``, cloud credentials),
so a developer's shell cannot change what a test does.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Iterator
from typing import Any

import pytest

LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1", "[::1]"})


CLEARED_ENV = (
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "ANTHROPIC_BASE_URL",
    "ANTHROPIC_MODEL",
    "ANTHROPIC_SMALL_FAST_MODEL",
    "ANTHROPIC_DEFAULT_SONNET_MODEL",
    "ANTHROPIC_DEFAULT_OPUS_MODEL",
    "ANTHROPIC_DEFAULT_HAIKU_MODEL",
    "NB_AGENT_PROVIDER",
    "CLAUDE_CODE_USE_BEDROCK",
    "CLAUDE_CODE_USE_VERTEX",
    "CLAUDE_CODE_USE_FOUNDRY",
    "AWS_BEARER_TOKEN_BEDROCK",
    "ANTHROPIC_BEDROCK_BASE_URL",
    "ANTHROPIC_VERTEX_BASE_URL",
    "ANTHROPIC_VERTEX_PROJECT_ID",
    "ANTHROPIC_FOUNDRY_API_KEY",
    "ANTHROPIC_FOUNDRY_RESOURCE",
    "ANTHROPIC_FOUNDRY_BASE_URL",
    "CLOUD_ML_REGION",
)


class RealApiAccessError(AssertionError):
    """A test tried to reach a real (non-loopback) model endpoint."""


def _guard(original: Any) -> Any:
    def check(url: Any) -> None:
        host = getattr(url, "host", "") or ""
        if host not in LOOPBACK_HOSTS:
            pytest.fail(f"test tried to reach the real API at {url}", pytrace=False)

    if inspect.iscoroutinefunction(original):

        async def asend(self: Any, request: Any, *args: Any, **kwargs: Any) -> Any:
            check(request.url)
            return await original(self, request, *args, **kwargs)

        return asend

    def send(self: Any, request: Any, *args: Any, **kwargs: Any) -> Any:
        check(request.url)
        return original(self, request, *args, **kwargs)

    return send


@pytest.fixture(autouse=True)
def no_real_anthropic(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Fail any attempt to reach a real model API; clear credentials from the env."""
    for name in CLEARED_ENV:
        monkeypatch.delenv(name, raising=False)
    for module_name in ("httpx2", "httpx"):
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            continue
        for cls_name in ("Client", "AsyncClient"):
            cls = getattr(module, cls_name, None)
            if cls is not None and hasattr(cls, "send"):
                monkeypatch.setattr(cls, "send", _guard(cls.send))
    yield
