from __future__ import annotations

from pathlib import Path

import pytest

from nb_agent.engine import EngineConfig


@pytest.fixture
def config(tmp_path: Path) -> EngineConfig:
    return EngineConfig(cwd=tmp_path, model="claude-sonnet-4-6")
