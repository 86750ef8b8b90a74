from __future__ import annotations

import pytest

from nb_agent.agent import create_engine
from nb_agent.testing import ScriptedTransport


@pytest.fixture
def make_engine(tmp_path):
    """``make_engine(turns, can_use_tool, mode)``: the built-in tools, settings from ``tmp_path``."""

    def make(turns, can_use_tool=None, mode=None):
        engine, _ = create_engine(
            cwd=tmp_path, home=tmp_path, transport=ScriptedTransport(turns), mcp=False,
            can_use_tool=can_use_tool, permission_mode=mode,
        )  # fmt: skip
        return engine

    return make
