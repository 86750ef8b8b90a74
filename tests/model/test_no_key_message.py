"""Without an API key the first request says how to set one in a notebook, in the user's
words (not "pass a transport"), and a key set afterwards with %env (os.environ) is used by
the same engine's next request: no kernel restart."""

from __future__ import annotations

import pytest

from nb_agent.errors import ConfigurationError
from nb_agent.model.client import default_transport_factory


def test_the_message_says_how_and_a_key_set_later_is_used(monkeypatch):
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "NB_AGENT_CASSETTE"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(ConfigurationError) as failed:
        default_transport_factory()
    message = str(failed.value)
    assert "%env ANTHROPIC_API_KEY=" in message and "no restart" in message
    assert "transport" not in message
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-not-used")  # what %env does in the kernel
    assert default_transport_factory() is not None  # made, never sent: this test sends nothing
