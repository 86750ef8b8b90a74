"""Audit defect 8: past the context warning level the status line says so, and what
compaction would do (the thresholds were computed but never shown)."""

from __future__ import annotations

import pytest

from nb_agent.context.config import ContextConfig, thresholds_for
from nb_agent.engine import EngineConfig, EngineOptions, QueryEngine
from nb_agent.jupyter.cell_view import status_snapshot
from nb_agent.jupyter.view.run_state import RunState
from nb_agent.jupyter.view.status_line import status_text
from nb_agent.model.pricing import Usage

MODEL = "claude-sonnet-4-6"


def _line(tmp_path, tokens: int, *, auto_compact: bool) -> str:
    engine = QueryEngine(config=EngineConfig(cwd=tmp_path, model=MODEL, options=EngineOptions(context=ContextConfig(auto_compact=auto_compact))))
    before = engine.usage.total
    engine.usage.add(MODEL, Usage(input_tokens=tokens, output_tokens=10))
    return status_text(status_snapshot(RunState(), engine, before, context_window=200_000))


@pytest.mark.parametrize("auto_compact", [True, False])
def test_below_the_warning_level_nothing_is_added(tmp_path, auto_compact) -> None:
    limits = thresholds_for(MODEL, ContextConfig())
    assert "near the limit" not in _line(tmp_path, limits.warning - 1, auto_compact=auto_compact)


def test_past_the_warning_level_the_line_says_when_it_is_summarized(tmp_path) -> None:
    limits = thresholds_for(MODEL, ContextConfig())
    line = _line(tmp_path, limits.warning, auto_compact=True)
    share = f"{100 * limits.autocompact / limits.context_window:.0f}%"
    assert f"⚠ near the limit: summarized automatically at {share}; %agent compact summarizes it now" in line


def test_without_autocompact_it_says_what_compact_does_and_where_runs_stop(tmp_path) -> None:
    limits = thresholds_for(MODEL, ContextConfig())
    line = _line(tmp_path, limits.warning + 100, auto_compact=False)
    share = f"{100 * limits.blocking / limits.context_window:.0f}%"
    assert f"⚠ near the limit: %agent compact summarizes the conversation to free it (runs stop at {share})" in line
