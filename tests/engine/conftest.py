from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from nb_agent.engine import EngineConfig, EngineOptions, QueryEngine
from nb_agent.model.retry import NO_RETRIES
from nb_agent.testing import ScriptedTransport


@pytest.fixture
def make_engine(tmp_path: Path):
    def make(turns: list[Any], **kwargs: Any) -> tuple[QueryEngine, ScriptedTransport]:
        transport = ScriptedTransport(turns)
        # No retries by default: these tests watch faults reach the loop (retries: tests/model).
        config = kwargs.pop("config", None) or EngineConfig(cwd=tmp_path, model="claude-sonnet-4-6", options=EngineOptions(retry_policy=NO_RETRIES))
        engine = QueryEngine(config=config, transport=transport, **kwargs)
        return engine, transport

    return make


@pytest.fixture
def check_invariant():
    """``await check(engine, transport)``: the history holds the invariant, the engine takes a
    follow-up submission, and every request it ever sent holds it too."""
    from nb_agent.testing import Reply, text
    from nb_agent.testing.collect import assert_history_invariant, assert_tool_result_invariant, collect

    async def check(engine: QueryEngine, transport: ScriptedTransport) -> None:
        assert_history_invariant(engine.messages)
        transport.script.add(Reply(content=[text("follow-up answer")]))
        out = await collect(engine, "follow-up")
        assert out.result.subtype == "success", out.result
        assert_history_invariant(engine.messages)
        for request in transport.requests:
            assert_tool_result_invariant(request["messages"])

    return check
