"""The status line counts the response being streamed (the trial saw "0 in / 0 out" for the
whole of a long answer: the totals grow only when a response ends), and a finished run
leaves one summary line (model, tokens, cache, cost, time) where the status line was."""

from __future__ import annotations

import re

from nb_agent.engine import EngineConfig, EngineResult, QueryEngine
from nb_agent.jupyter import cell_view
from nb_agent.jupyter.static_render import static_bundle
from nb_agent.jupyter.view.run_state import RunState
from nb_agent.jupyter.view.status_line import run_summary, status_text
from nb_agent.model.pricing import Usage
from nb_agent.testing import Reply, ScriptedTransport, text

LONG_ANSWER = "A long answer, streamed in small pieces. " * 40


async def test_the_status_line_counts_the_answer_while_it_streams(tmp_path):
    reply = Reply(content=[text(LONG_ANSWER)], input_tokens=1_200, cache_read_input_tokens=3_000, output_tokens=420, chunk_size=8)
    engine = QueryEngine(config=EngineConfig(cwd=tmp_path, model="claude-sonnet-4-5"), transport=ScriptedTransport([reply]))
    state, before = RunState(model="claude-sonnet-4-5"), engine.usage.total
    during: list[tuple[int, str]] = []  # (characters streamed so far, the status line then)
    result = None
    async for event in engine.submit_message("tell me at length"):
        if isinstance(event, EngineResult):
            result = event
            continue
        state.on_event(event)
        if getattr(event, "type", None) == "stream_event" and event.event.type == "content_block_delta":
            line = status_text(cell_view.status_snapshot(state, engine, before, context_window=200_000))
            during.append((len(state.answer_text), line))
    engine.close()
    assert result is not None and result.subtype == "success"
    midway_chars, midway = during[len(during) // 2]
    assert midway_chars > 100
    # the request's input (cache reads included) from message_start; the output estimated, and said to be
    assert f"4.2k in / ~{-(-midway_chars // 4)} out" in midway, midway
    assert "context 2%" in midway, midway
    after = status_text(cell_view.status_snapshot(state, engine, before, context_window=200_000))
    assert "4.2k in / 420 out" in after, after  # the API's own count once the response ended
    assert engine.usage.in_flight() == (Usage(), False)


def test_a_finished_run_keeps_one_summary_line():
    usage = Usage(input_tokens=1_500, cache_read_input_tokens=9_800, cache_creation_input_tokens=1_200, output_tokens=456)
    line = run_summary(model="claude-sonnet-4-5", usage=usage, cost_usd=0.01234, elapsed_s=4.25)
    assert line == "claude-sonnet-4-5 · 12k in (cache: 9.8k read, 1.2k written) / 456 out · $0.0123 · 4.2s"
    state = RunState(model="claude-sonnet-4-5")
    state.finish()
    state.summary = line
    bundle = static_bundle(state)
    assert bundle["text/plain"].endswith(line)
    assert bundle["text/markdown"].endswith(line.replace("$", "\\$") + "*")  # no $ … $ math in a Markdown renderer
    assert re.search(r'<p class="nb-agent-summary"[^>]*>claude-sonnet-4-5 · 12k in .* · 4\.2s</p></div>$', bundle["text/html"])
