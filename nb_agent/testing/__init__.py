"""Test doubles for nb_agent: a scripted model, in-process or over real HTTP.

Write the model's side of a conversation as a list of turns and play it with either
double; both produce the exact events and exceptions of the ``anthropic`` SDK::

    from nb_agent.testing import FakeAnthropicServer, Reply, ScriptedTransport, text, tool_use

    turns = [Reply(content=[tool_use("Bash", {"command": "ls"})]), Reply(content=[text("done")])]
    transport = ScriptedTransport(turns)          # in-process ModelTransport
    with FakeAnthropicServer(turns) as server:    # real HTTP for the real SDK
        client = server.client()

Importing this package pulls in neither IPython nor a running server.
"""

from nb_agent.testing.fake_server import FakeAnthropicServer
from nb_agent.testing.script import (
    ErrorReply,
    Reply,
    Script,
    ScriptExhaustedError,
    Turn,
    cited_text,
    held_at_end,
    held_partway,
    overloaded_error,
    prompt_too_long_error,
    rate_limit_error,
    reply_events,
    reply_message,
    request_too_large_error,
    server_tool_use,
    text,
    thinking,
    tool_use,
    web_search_tool_result,
)
from nb_agent.testing.scripted_model import ScriptedTransport

__all__ = [
    "ErrorReply",
    "FakeAnthropicServer",
    "Reply",
    "Script",
    "ScriptExhaustedError",
    "ScriptedTransport",
    "Turn",
    "held_at_end",
    "held_partway",
    "overloaded_error",
    "prompt_too_long_error",
    "rate_limit_error",
    "reply_events",
    "reply_message",
    "request_too_large_error",
    "text",
    "cited_text",
    "server_tool_use",
    "thinking",
    "tool_use",
    "web_search_tool_result",
]
