"""The status line's once-a-second update is a few bytes: while an answer streams only the
elapsed time changes, and it is a widget of its own (the whole line, ~200 bytes, was re-sent
every second: at a model's pace about as much traffic as the answer's own pages)."""

from __future__ import annotations

import re
from dataclasses import replace

from nb_agent.jupyter.view.agent_view import WidgetAgentView
from nb_agent.jupyter.view.run_state import RunState
from nb_agent.jupyter.view.status_line import StatusSnapshot, status_text


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _sent_values(widget, into: list[str]) -> None:
    widget.observe(lambda change: into.append(change["new"]), names="value")


def test_a_second_of_streaming_re_sends_the_clock_only():
    clock = Clock()
    snapshot = StatusSnapshot(model="claude-sonnet-4-6", turn=2, input_tokens=12_000, output_tokens=300, context_tokens=40_000, session_cost_usd=0.0123)
    view = WidgetAgentView(RunState(clock=clock), status=lambda: replace(snapshot, elapsed_s=clock.now), clock=clock)
    try:
        line: list[str] = []
        clock_values: list[str] = []
        _sent_values(view.status_widget, line)
        _sent_values(view.clock_widget, clock_values)
        for _ in range(250):  # ten seconds of the run's 40-ms ticker
            clock.now += 0.04
            view.tick()
        assert line == []  # nothing on the line changed: never re-sent
        assert len(clock_values) >= 9 and float(re.findall(r"([\d.]+)s<", clock_values[-1])[0]) >= 9, clock_values
        assert max(len(v) for v in clock_values) < 50, clock_values
        assert status_text(snapshot, clock=False) in view.status_widget.value
    finally:
        view.close()


def test_the_line_is_re_sent_when_a_figure_changes():
    clock = Clock()
    turn = [1]
    snapshot = StatusSnapshot(model="m", turn=1, input_tokens=0, output_tokens=0, context_tokens=0)
    view = WidgetAgentView(RunState(clock=clock), status=lambda: replace(snapshot, turn=turn[0], elapsed_s=clock.now), clock=clock)
    try:
        turn[0] = 2
        for _ in range(30):
            clock.now += 0.04
            view.tick()
        assert "turn 2" in view.status_widget.value and "turn" not in view.clock_widget.value
        assert view.root.children[-1] is view.status_row and list(view.status_row.children) == [view.status_widget, view.clock_widget]
    finally:
        view.close()
