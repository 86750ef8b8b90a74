from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from nb_agent.context.compact import COMPACT_PROMPT, SUMMARY_SYSTEM_PROMPT
from nb_agent.context.config import ContextConfig
from nb_agent.context.tokens import estimate_api_messages_tokens, estimate_text_tokens
from nb_agent.context.tool_use_summary import SUMMARY_PROMPT
from nb_agent.engine import EngineConfig, EngineOptions, QueryEngine
from nb_agent.model.retry import NO_RETRIES
from nb_agent.testing import ErrorReply, Reply, ScriptedTransport, text
from nb_agent.testing.tools import FunctionTool


def request_tokens(body: dict[str, Any]) -> int:
    """What the fake API reports as input tokens: about four characters a token."""
    system = body.get("system") or ""
    system_text = system if isinstance(system, str) else " ".join(b.get("text", "") for b in system)
    return estimate_api_messages_tokens(body["messages"]) + estimate_text_tokens(system_text)


def is_summary_request(body: dict[str, Any]) -> bool:
    """A compaction's summary request: the plain one, or the one over the conversation's
    own prefix (its last user message holds the compaction prompt)."""
    if body.get("system") == SUMMARY_SYSTEM_PROMPT:
        return True
    last = body["messages"][-1]
    blocks = last["content"] if isinstance(last["content"], list) else [{"type": "text", "text": last["content"]}]
    return last["role"] == "user" and any(b.get("type") == "text" and b.get("text", "").startswith(COMPACT_PROMPT[:60]) for b in blocks)


def is_tool_use_summary_request(body: dict[str, Any]) -> bool:
    first = body["messages"][0]["content"]
    return isinstance(first, list) and first[0].get("text", "").startswith(SUMMARY_PROMPT)


Turn = Reply | ErrorReply | Callable[[dict[str, Any]], Reply | ErrorReply]


class Model:
    """A fake model: main-loop turns in order, compaction summaries answered on the side,
    and input_tokens reported from the request size like the real API."""

    def __init__(
        self,
        main: list[Turn],
        *,
        summaries: list[Turn] | None = None,
        summary_text: str = "Summary of the work so far.",
        tool_summaries: list[Turn] | None = None,
    ) -> None:
        self.main: deque[Turn] = deque(main)
        self.summaries: deque[Turn] = deque(summaries or [])
        self.summary_text = summary_text
        self.tool_summaries: deque[Turn] = deque(tool_summaries or [])
        self.main_requests: list[dict[str, Any]] = []
        self.summary_requests: list[dict[str, Any]] = []
        self.tool_summary_requests: list[dict[str, Any]] = []

    def __call__(self, body: dict[str, Any]) -> Reply | ErrorReply:
        if is_tool_use_summary_request(body):
            self.tool_summary_requests.append(body)
            turn = self.tool_summaries.popleft() if self.tool_summaries else Reply(content=[text("Ran the tools")])
        elif is_summary_request(body):
            self.summary_requests.append(body)
            turn = self.summaries.popleft() if self.summaries else Reply(content=[text(f"<analysis>a</analysis><summary>{self.summary_text}</summary>")])
        else:
            self.main_requests.append(body)
            assert self.main, f"unscripted main request: {body['messages'][-1]}"
            turn = self.main.popleft()
        if callable(turn):
            turn = turn(body)
        if isinstance(turn, Reply):
            turn = replace(turn, input_tokens=request_tokens(body))
        return turn

    def transport(self, calls: int = 200) -> ScriptedTransport:
        return ScriptedTransport([self] * calls)


class SizeInput(BaseModel):
    chars: int = 0
    label: str = ""


def make_sized_tool(name: str = "Fetch", *, max_result_size_chars: float = 10_000_000) -> FunctionTool:
    """Returns ``chars`` characters (a label first, so results differ)."""

    async def produce(inp: SizeInput, ctx: Any) -> str:
        head = f"[{inp.label}]"
        return head + "x" * max(0, inp.chars - len(head))

    tool = FunctionTool(name, produce, SizeInput, read_only=True, concurrency_safe=True)
    tool.max_result_size_chars = max_result_size_chars  # type: ignore[misc]
    return tool


@pytest.fixture
def make_engine(tmp_path: Path):
    def make(transport: Any, *, context: ContextConfig | None = None, model: str = "claude-sonnet-4-6", **kwargs: Any) -> QueryEngine:
        config = EngineConfig(
            cwd=tmp_path, model=model, options=EngineOptions(retry_policy=NO_RETRIES, context=context or ContextConfig())
        )
        return QueryEngine(config=config, transport=transport, **kwargs)

    return make


@pytest.fixture
def sized_tool():
    """``sized_tool(name)``: a tool returning ``chars`` characters of output."""
    return make_sized_tool


@pytest.fixture
def fake_model():
    """``fake_model(main_turns, ...)``: see :class:`Model`."""
    return Model
