from __future__ import annotations

import importlib
from typing import Any

import pytest

query_module = importlib.import_module("nb_agent.loop.query")  # the package re-exports query() under this name


@pytest.fixture
def transitions(monkeypatch: pytest.MonkeyPatch) -> list[str | None]:
    """The ``State.transition`` reason of every loop iteration, in order (None first)."""
    seen: list[str | None] = []
    original = query_module._prepare_window

    async def spy(state: Any, deps: Any) -> Any:
        seen.append(state.transition.reason if state.transition else None)
        return await original(state, deps)

    monkeypatch.setattr(query_module, "_prepare_window", spy)
    return seen
