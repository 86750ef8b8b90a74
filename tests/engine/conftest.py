from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from nb_agent.engine import EngineConfig, QueryEngine
from nb_agent.testing import ScriptedTransport


@pytest.fixture
def make_engine(tmp_path: Path):
    def make(turns: list[Any], **kwargs: Any) -> tuple[QueryEngine, ScriptedTransport]:
        transport = ScriptedTransport(turns)
        config = kwargs.pop("config", None) or EngineConfig(cwd=tmp_path, model="claude-sonnet-4-6")
        engine = QueryEngine(config=config, transport=transport, **kwargs)
        return engine, transport

    return make
