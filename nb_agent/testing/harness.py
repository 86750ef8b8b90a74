"""Run the loop layer directly in a test: ``query()`` over a scripted model.

``run_query`` builds ``QueryParams``/``QueryDeps`` around a ``ScriptedTransport`` and
collects what ``query()`` yields, so a test can name the ``Terminal`` reason it expects
without going through the session layer::

    run = await run_query([Reply(content=[text("hi")])], prompt="hello")
    assert run.terminal.reason == "completed"
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nb_agent.abort import AbortController
from nb_agent.loop.pipeline import ToolRunDeps
from nb_agent.loop.query import query
from nb_agent.loop.state import QueryDeps, QueryParams, Terminal
from nb_agent.messages import UserMessage
from nb_agent.model.client import ModelRequest, ModelStreamItem, stream_response
from nb_agent.model.transport import ModelTransport
from nb_agent.testing.script import Script, Turn
from nb_agent.testing.scripted_model import ScriptedTransport
from nb_agent.tools.base import Tool, ToolSession, ToolUseContext


def tool_context(
    tools: Sequence[Tool[Any]] = (),
    *,
    abort: AbortController | None = None,
    session_dir: Path | None = None,
    **kwargs: Any,
) -> ToolUseContext:
    """A ``ToolUseContext`` for running tools outside an engine."""
    session = ToolSession(cwd=session_dir or Path.cwd(), session_dir=session_dir)
    return ToolUseContext(abort_controller=abort or AbortController(), tools=list(tools), session=session, **kwargs)


def scripted_call_model(transport: ModelTransport) -> Any:
    """A ``QueryDeps.call_model`` that streams each request through ``transport``."""

    def call_model(request: ModelRequest) -> AsyncIterator[ModelStreamItem]:
        return stream_response(transport, request)

    return call_model


@dataclass(kw_only=True)
class QueryRun:
    """What one ``query()`` run yielded."""

    events: list[Any] = field(default_factory=list)
    terminal: Terminal | None = None
    transport: ScriptedTransport | None = None

    def of_type(self, kind: str) -> list[Any]:
        return [e for e in self.events if getattr(e, "type", None) == kind]

    @property
    def requests(self) -> list[dict[str, Any]]:
        assert self.transport is not None
        return self.transport.requests

    @property
    def history(self) -> list[Any]:
        """The conversation the run produced (what a session layer would keep)."""
        kept = ("user", "assistant", "attachment", "compact_boundary")
        out: list[Any] = []
        for event in self.events:
            if event.type == "tombstone":
                out = [m for m in out if m.uuid != event.target_uuid]
            elif event.type in kept:
                out.append(event)
        return out


async def run_query(
    turns: Script | Iterable[Turn] | ScriptedTransport,
    *,
    prompt: str = "go",
    messages: Sequence[Any] = (),
    tools: Sequence[Tool[Any]] = (),
    ctx: ToolUseContext | None = None,
    tool_run_deps: ToolRunDeps | None = None,
    deps: dict[str, Any] | None = None,
    **params: Any,
) -> QueryRun:
    """Run ``query()`` for one prompt against a scripted model; collect every event."""
    transport = turns if isinstance(turns, ScriptedTransport) else ScriptedTransport(turns)
    context = ctx or tool_context(tools)
    user = UserMessage(content=prompt)
    query_params = QueryParams(
        messages=[*messages, user],
        tool_use_context=context,
        tool_run_deps=tool_run_deps or ToolRunDeps(),
        **params,
    )
    query_deps = QueryDeps(call_model=scripted_call_model(transport), **(deps or {}))
    run = QueryRun(transport=transport, events=[user])
    async for event in query(query_params, query_deps):
        if isinstance(event, Terminal):
            run.terminal = event
        else:
            run.events.append(event)
    return run


__all__ = ["QueryRun", "run_query", "scripted_call_model", "tool_context"]
