"""A retry notice is said while the retry is pending: one line (the latest attempt), gone once
the answer arrives, and replaced by the run's error when every attempt failed (the trial saw
a 401 said three times: two retry lines and the error; and retry notices left on the view
after the retry succeeded)."""

from __future__ import annotations

from nb_agent.engine import EngineConfig, EngineOptions, EngineResult, QueryEngine
from nb_agent.jupyter import cell_view
from nb_agent.jupyter.view.run_state import Notice, RunState
from nb_agent.model.retry import RETRY_NOTICE_SUBTYPE, RetryPolicy
from nb_agent.testing import ErrorReply, Reply, ScriptedTransport, text
from nb_agent.testing.collect import collect

FAST = RetryPolicy(base_delay_s=0.001, max_delay_s=0.001, jitter=0, max_retries=3)
FAILING = ErrorReply(status=500, error_type="api_error", message="the server broke")


async def _run(tmp_path, turns) -> tuple[RunState, list[int], EngineResult]:
    engine = QueryEngine(
        config=EngineConfig(cwd=tmp_path, model="claude-sonnet-4-5", options=EngineOptions(retry_policy=FAST)),
        transport=ScriptedTransport(turns),
    )
    state = RunState()
    shown_retries: list[int] = []  # retry notices on the view after each change
    state.listeners.append(lambda what, item: shown_retries.append(len(_retry_notices(state))))
    run = await collect(engine, "hi")
    for event in run.events:  # the view takes the events in the order the run yielded them
        state.on_event(event)
    engine.close()
    result = run.result
    assert result is not None
    return state, shown_retries, result


def _retry_notices(state: RunState) -> list[Notice]:
    return [i for i in state.items if isinstance(i, Notice) and i.subtype == RETRY_NOTICE_SUBTYPE]


async def test_retry_notices_are_one_line_and_go_when_the_retry_worked(tmp_path):
    overloaded = ErrorReply(status=529, error_type="overloaded_error")
    state, shown_retries, result = await _run(tmp_path, [overloaded, overloaded, Reply(content=[text("here it is")])])
    assert result.subtype == "success"
    assert max(shown_retries) == 1, "a second attempt's notice replaces the first"
    state.finish(result=result)
    assert _retry_notices(state) == []
    assert [type(i).__name__ for i in state.items] == ["TextBlock"]


async def test_a_failure_after_retries_is_said_once(tmp_path):
    state, shown_retries, result = await _run(tmp_path, [FAILING] * 4)
    assert max(shown_retries) == 1
    assert result.is_error and result.error and "the server broke" in result.error
    # what cell_run does: the run's error joins the view unless a notice of the run says it
    state.finish(result=result, error=None if cell_view.shown(state, result.error) else result.error)
    notices = [i for i in state.items if isinstance(i, Notice)]
    assert [n.level for n in notices] == ["error"] and result.error in notices[0].text, [(n.subtype, n.text) for n in notices]
