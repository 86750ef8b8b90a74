from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from nb_agent.engine import EngineConfig, QueryEngine
from nb_agent.testing import ScriptedTransport


@pytest.fixture
def hook_engine(tmp_path: Path):
    """``make(turns, hooks, tools)`` → (engine, transport), working in ``tmp_path``."""

    def make(turns: list[Any], hooks: Any, tools: list[Any], **kwargs: Any) -> tuple[QueryEngine, ScriptedTransport]:
        transport = ScriptedTransport(turns)
        engine = QueryEngine(config=EngineConfig(cwd=tmp_path), tools=tools, transport=transport, hooks=hooks, **kwargs)
        return engine, transport

    return make
