"""A streamed answer's widget traffic is linear in its length: the live view re-sends its
last page only, never the whole answer (ipywidgets in-process, a fake clock)."""

from __future__ import annotations

import re
from types import SimpleNamespace as NS

import pytest

from nb_agent.jupyter.view.agent_view import WidgetAgentView
from nb_agent.jupyter.view.run_state import RunState
from nb_agent.jupyter.view.status_line import StatusSnapshot
from nb_agent.messages import AssistantMessage, StreamEvent

ANSWER = "".join(f"word{i} " + ("\n\n" if i % 60 == 59 else "") for i in range(2_600))[:20_000]


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _status() -> StatusSnapshot:
    return StatusSnapshot(model="m", turn=1, input_tokens=0, output_tokens=0, context_tokens=0)


def _counting_view(clock: Clock) -> tuple[RunState, WidgetAgentView, list[int]]:
    """A view whose HTML widgets report the size of every value they are given (what a
    comm message carries: the new value whole)."""
    state = RunState(clock=clock)
    view = WidgetAgentView(state, status=_status, clock=clock)
    sent: list[int] = []
    make = view._new_html

    def counting(value: str):
        widget = make(value)
        sent.append(len(value))
        widget.observe(lambda change: sent.append(len(change["new"])), names="value")
        return widget

    view._new_html = counting  # type: ignore[method-assign]
    return state, view, sent


def _delta(text: str) -> StreamEvent:
    return StreamEvent(event=NS(type="content_block_delta", index=0, delta=NS(type="text_delta", text=text)))


def _stream(state: RunState, view: WidgetAgentView, clock: Clock, answer: str, *, chars_per_s: float, final: str | None = None) -> None:
    state.on_event(StreamEvent(event=NS(type="message_start")))
    state.on_event(StreamEvent(event=NS(type="content_block_start", index=0, content_block=NS(type="text"))))
    ticks_at = 0.0
    for i in range(0, len(answer), 2):
        clock.now = i / chars_per_s
        state.on_event(_delta(answer[i : i + 2]))
        while clock.now >= ticks_at:  # the run's ticker, every 40 ms
            view.tick()
            ticks_at += 0.04
    state.on_event(StreamEvent(event=NS(type="content_block_stop", index=0)))
    state.on_event(AssistantMessage(content=[{"type": "text", "text": final or answer}], message_id="m", model="m"))
    clock.now += 2
    view.tick()


def _shown(view: WidgetAgentView) -> str:
    (widgets,) = [w for w in view._widgets.values() if w.pages is not None]
    return "".join(page.value for page in widgets.pages.pages)


@pytest.mark.parametrize("chars_per_s", [1_000, 2_000, 20_000])
def test_a_long_answer_costs_a_small_multiple_of_itself_at_a_models_pace(chars_per_s: float):
    clock = Clock()
    state, view, sent = _counting_view(clock)
    _stream(state, view, clock, ANSWER, chars_per_s=chars_per_s)
    shown = _shown(view)
    assert re.findall(r"word\d+", shown) == re.findall(r"word\d+", ANSWER)  # all of it, once, in order
    assert sum(sent) <= 3 * len(shown), (sum(sent), len(shown))  # was 60-900x: the whole answer per flush


@pytest.mark.parametrize("chars_per_s", [100, 2_000])
def test_traffic_grows_linearly_with_the_answer_at_any_pace(chars_per_s: float):
    """Slowly streamed, a page is re-sent every second for little new text (a few times the
    answer), but twice the answer still costs about twice as much, never four times."""
    costs = []
    for answer in (ANSWER[:10_000], ANSWER):
        clock = Clock()
        state, view, sent = _counting_view(clock)
        _stream(state, view, clock, answer, chars_per_s=chars_per_s)
        costs.append(sum(sent))
    assert costs[1] <= 2.3 * costs[0], costs


def test_the_page_being_written_shows_new_text_within_a_second():
    clock = Clock()
    state, view, _sent = _counting_view(clock)
    state.on_event(StreamEvent(event=NS(type="message_start")))
    state.on_event(StreamEvent(event=NS(type="content_block_start", index=0, content_block=NS(type="text"))))
    for second in range(1, 4):
        state.on_event(_delta(f"sentence {second}. "))
        for _ in range(25):
            clock.now += 0.04
            view.tick()
        assert f"sentence {second}." in _shown(view)


def test_a_final_text_other_than_the_streamed_one_replaces_the_pages():
    clock = Clock()
    state, view, _sent = _counting_view(clock)
    final = ANSWER.replace("word7 ", "seven ")
    _stream(state, view, clock, ANSWER, chars_per_s=2_000, final=final)
    (widgets,) = [w for w in view._widgets.values() if w.pages is not None]
    assert len(widgets.pages.pages) == 1
    assert re.findall(r"\b(?:word\d+|seven)\b", _shown(view)) == re.findall(r"\b(?:word\d+|seven)\b", final)


def test_the_finished_block_renders_its_exact_text_after_the_sealed_pages():
    clock = Clock()
    state, view, _sent = _counting_view(clock)
    final = ANSWER + "\n\nA last line."
    _stream(state, view, clock, ANSWER, chars_per_s=2_000, final=final)
    (widgets,) = [w for w in view._widgets.values() if w.pages is not None]
    assert len(widgets.pages.pages) > 3
    assert _shown(view).endswith("<p>A last line.</p>\n")


def _stream_thinking(state: RunState, view: WidgetAgentView, clock: Clock, thought: str, *, chars_per_s: float) -> None:
    state.on_event(StreamEvent(event=NS(type="message_start")))
    state.on_event(StreamEvent(event=NS(type="content_block_start", index=0, content_block=NS(type="thinking"))))
    ticks_at = 0.0
    for i in range(0, len(thought), 2):
        clock.now = i / chars_per_s
        piece = NS(type="thinking_delta", thinking=thought[i : i + 2])
        state.on_event(StreamEvent(event=NS(type="content_block_delta", index=0, delta=piece)))
        while clock.now >= ticks_at:
            view.tick()
            ticks_at += 0.04
    state.on_event(StreamEvent(event=NS(type="content_block_stop", index=0)))
    state.on_event(AssistantMessage(content=[{"type": "thinking", "thinking": thought, "signature": "s"}], message_id="m", model="m"))
    clock.now += 2
    view.tick()


def test_streamed_thinking_is_paged_like_an_answer():
    """Thinking was re-sent whole on every update (its traffic grew with its square)."""
    clock = Clock()
    state, view, sent = _counting_view(clock)
    thought = ANSWER.replace("word1 ", "**word1** ")
    _stream_thinking(state, view, clock, thought, chars_per_s=2_000)
    shown = _shown(view)
    assert re.findall(r"word\d+", shown) == re.findall(r"word\d+", thought)
    assert "**word1**" in shown and "<strong>" not in shown  # as written, not Markdown
    (widgets,) = [w for w in view._widgets.values() if w.pages is not None]
    assert len(widgets.pages.pages) > 3 and widgets.outer.children == (widgets.pages.box,)  # pages inside the accordion
    assert sum(sent) <= 3 * len(shown), (sum(sent), len(shown))
