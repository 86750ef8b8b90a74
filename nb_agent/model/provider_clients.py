"""The SDK client for each provider, built from Claude Code's variables.

- Anthropic: ``AsyncAnthropic`` (``ANTHROPIC_API_KEY`` / ``ANTHROPIC_AUTH_TOKEN`` /
  ``ANTHROPIC_BASE_URL``, the latter also for an LLM gateway).
- Bedrock: ``AsyncAnthropicBedrock`` (``AWS_REGION``, AWS keys or profile, or
  ``AWS_BEARER_TOKEN_BEDROCK``; ``ANTHROPIC_BEDROCK_BASE_URL``). Needs ``nb_agent[bedrock]``
  (boto3/botocore: request signing and the event-stream decoder).
- Vertex: ``AsyncAnthropicVertex`` (``CLOUD_ML_REGION``, ``ANTHROPIC_VERTEX_PROJECT_ID``,
  ``ANTHROPIC_VERTEX_BASE_URL``; Google application-default credentials). Needs
  ``nb_agent[vertex]`` (google-auth).
- Foundry: ``AsyncAnthropicFoundry`` (``ANTHROPIC_FOUNDRY_API_KEY``,
  ``ANTHROPIC_FOUNDRY_RESOURCE`` or ``ANTHROPIC_FOUNDRY_BASE_URL``).

``CLAUDE_CODE_SKIP_BEDROCK_AUTH`` / ``CLAUDE_CODE_SKIP_VERTEX_AUTH`` (Claude Code's) skip the
cloud credentials, for a gateway that adds its own: the client then sends a placeholder.
The SDK's own retries are off; nb_agent retries (``nb_agent.model.retry``).
"""

from __future__ import annotations

import os
from typing import Any

from nb_agent.errors import ConfigurationError
from nb_agent.model.providers import Provider

SKIP_AUTH_ENV = {Provider.BEDROCK: "CLAUDE_CODE_SKIP_BEDROCK_AUTH", Provider.VERTEX: "CLAUDE_CODE_SKIP_VERTEX_AUTH"}
_EXTRA = {Provider.BEDROCK: "bedrock", Provider.VERTEX: "vertex"}
SKIPPED_AUTH_TOKEN = "skipped-auth"


def _flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in ("1", "true", "yes", "on")


def provider_client(provider: Provider) -> Any:
    """An async SDK client for ``provider``; a clear ``ConfigurationError`` when it cannot be made."""
    import anthropic

    try:
        if provider is Provider.BEDROCK:
            kwargs: dict[str, Any] = {"max_retries": 0}
            if _flag(SKIP_AUTH_ENV[provider]) and not os.environ.get("AWS_BEARER_TOKEN_BEDROCK"):
                kwargs["api_key"] = SKIPPED_AUTH_TOKEN
            from anthropic.lib.bedrock import AsyncAnthropicBedrock

            return AsyncAnthropicBedrock(**kwargs)
        if provider is Provider.VERTEX:
            kwargs = {"max_retries": 0}
            if _flag(SKIP_AUTH_ENV[provider]):
                kwargs["access_token"] = SKIPPED_AUTH_TOKEN
            from anthropic.lib.vertex import AsyncAnthropicVertex

            return AsyncAnthropicVertex(**kwargs)
        if provider is Provider.FOUNDRY:
            return anthropic.AsyncAnthropicFoundry(max_retries=0)
        return anthropic.AsyncAnthropic(max_retries=0)
    except ImportError as exc:
        extra = _EXTRA.get(provider, "")
        raise ConfigurationError(f"{provider.label} needs extra packages: pip install 'nb_agent[{extra}]' ({exc})") from None
    except (anthropic.AnthropicError, ValueError, TypeError) as exc:
        raise ConfigurationError(f"Cannot reach Claude on {provider.label}: {exc}") from None


__all__ = ["SKIP_AUTH_ENV", "provider_client"]
