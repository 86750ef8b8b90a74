import anthropic
import pytest


async def test_real_api_host_is_refused() -> None:
    client = anthropic.AsyncAnthropic(api_key="sk-test", max_retries=0)
    with pytest.raises(pytest.fail.Exception, match="real API"):
        await client.messages.create(model="claude-haiku-4-5", max_tokens=10, messages=[{"role": "user", "content": "hi"}])


def test_credentials_are_cleared() -> None:
    import os

    assert "ANTHROPIC_API_KEY" not in os.environ
