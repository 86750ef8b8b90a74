"""Engines with the Agent tool over a routed script (subagents call the model side by side)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from nb_agent.agent import create_engine
from nb_agent.engine import EngineConfig, EngineOptions, QueryEngine
from nb_agent.model.retry import NO_RETRIES
from nb_agent.testing import ScriptedTransport
from nb_agent.testing.routing import RoutedScript
from nb_agent.testing.tools import RecordingTool


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = tmp_path / "home"
    path.mkdir()
    return path


@pytest.fixture
def project(tmp_path: Path) -> Path:
    path = tmp_path / "project"
    path.mkdir()
    return path


@pytest.fixture
def make_agent_engine(project: Path, home: Path):
    """``make(routes, tools=..., **create_engine_kwargs) -> (engine, script)``."""

    def make(
        routes: Mapping[str, Iterable[Any]], *, tools: Sequence[Any] | None = None, **kwargs: Any
    ) -> tuple[QueryEngine, RoutedScript]:
        script = RoutedScript(routes)
        kwargs.setdefault("trust", True)  # these projects' agents are the subject: a trusted folder
        config = kwargs.pop("config", None) or EngineConfig(cwd=project, model="claude-sonnet-4-6", options=EngineOptions(retry_policy=NO_RETRIES))
        engine, warnings = create_engine(
            config=config,
            tools=list(tools) if tools is not None else [RecordingTool("Echo")],
            transport=ScriptedTransport(script),
            home=home,
            mcp=False,
            **kwargs,
        )
        assert not warnings, warnings
        return engine, script

    return make
