"""A Dask computation's progress while ExecuteCode runs it, in an in-process IPython shell
with real Dask: the card gets one line at most once a second, the model one line of what
ran, a fast call shows nothing, and nothing stays registered with Dask afterwards.

The tasks wait for the card's lines (events), never for time: task k of a chain runs only
once the card has shown its (k+1)-th line, so each line is known in advance."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import threading
import time

import pytest

from nb_agent.errors import AbortError
from nb_agent.jupyter.tools import ExecuteCode, KernelBridge, compute_progress
from nb_agent.jupyter.view.run_state import ToolCall
from nb_agent.jupyter.view.tool_card import card_html
from nb_agent.testing.harness import tool_context

dask = pytest.importorskip("dask")
from dask.callbacks import Callback  # noqa: E402

WAIT_S = 120  # only a hang detector: each wait ends at the card's next line

CHAIN = """\
import dask
def step(previous, k):
    assert card_lines_seen(k + 1), "the card never showed its line"
    return previous + 1
chain = 0
for k in range(4):
    chain = dask.delayed(step)(chain, k)
chain.compute(scheduler="threads")
"""


@pytest.fixture(scope="module")
def shell():
    from IPython.core.interactiveshell import InteractiveShell

    return InteractiveShell.instance()


class CardLines:
    """The compute lines the card was sent, with when; tasks wait for them."""

    def __init__(self) -> None:
        self.lines: list[tuple[float, str]] = []
        self.condition = threading.Condition()

    def live(self, tool_name: str, progress: dict) -> None:
        if "compute" in progress:
            with self.condition:
                if not self.lines or self.lines[-1][1] != progress["compute"]:
                    self.lines.append((time.monotonic(), progress["compute"]))
                self.condition.notify_all()

    def seen(self, count: int) -> bool:
        with self.condition:
            return self.condition.wait_for(lambda: len(self.lines) >= count, timeout=WAIT_S)


def _run(shell, code, live, on_progress=None):
    tool = ExecuteCode(KernelBridge(shell=shell, live_output=live))
    parsed = tool.parse_input({"code": code})
    result = asyncio.run(tool.call(parsed, tool_context([tool]), on_progress or [].append))
    return result, tool.map_result_to_block(result.data, "t")


def test_a_long_dask_compute_shows_its_tasks_once_a_second_and_the_model_gets_one_line(shell):
    card = CardLines()
    shell.user_ns["card_lines_seen"] = card.seen
    result, content = _run(shell, CHAIN, card.live)
    assert not result.is_error, content
    assert [line for _, line in card.lines] == [f"dask: {done}/4 tasks" for done in range(4)]
    gaps = [later - earlier for (earlier, _), (later, _) in zip(card.lines, card.lines[1:], strict=False)]
    assert min(gaps) >= compute_progress.INTERVAL_S * 0.95, gaps  # never more than one line a second
    assert "[result]\n4" in content and content.endswith("[compute]\ndask: 4 tasks")
    assert not re.search(r"\d/4 tasks", content)  # the model never gets the progress
    assert not Callback.active  # nothing left registered with Dask


def test_code_that_awaits_a_compute_reports_through_the_loop(shell):
    card, live = CardLines(), CardLines()
    shell.user_ns["card_lines_seen"] = card.seen
    code = CHAIN.replace('chain.compute(scheduler="threads")', 'import asyncio\nawait asyncio.to_thread(chain.compute, scheduler="threads")')
    result, content = _run(shell, code, live.live, on_progress=lambda progress: card.live("ExecuteCode", progress))
    assert not result.is_error, content
    assert [line for _, line in card.lines] == [f"dask: {done}/4 tasks" for done in range(4)]
    assert live.lines == []  # the loop was free: nothing went around it
    assert content.endswith("[compute]\ndask: 4 tasks")


def test_a_fast_compute_shows_nothing_and_still_says_what_ran(shell, monkeypatch):
    monkeypatch.setattr(compute_progress, "INTERVAL_S", 3600.0)  # ends long before its first line
    card = CardLines()
    result, content = _run(shell, "import dask\nparts = [dask.delayed(abs)(-i) for i in range(3)]\ndask.compute(*parts, scheduler='sync')", card.live)
    assert not result.is_error, content
    assert card.lines == []  # and the call did not wait for the watcher's interval
    assert content.endswith("[compute]\ndask: 3 tasks")


def test_code_without_a_computation_gets_no_compute_line(shell):
    card = CardLines()
    _, content = _run(shell, "1 + 1", card.live)
    assert content == "[result]\n2" and card.lines == []


def test_stop_during_a_dask_compute_ends_the_call_and_unregisters(shell):
    card = CardLines()
    started = threading.Event()
    shell.user_ns.update(card_lines_seen=card.seen, compute_started=started)
    code = "import dask, time\ndef spin(i):\n    compute_started.set()\n    while True:\n        time.sleep(0.01)\ndask.delayed(spin)(0).compute(scheduler='sync')"
    timer = threading.Thread(target=lambda: started.wait(WAIT_S) and os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(AbortError):
            _run(shell, code, card.live)
    finally:
        timer.join()
    assert not Callback.active


def test_the_card_shows_the_line_as_text():
    card = ToolCall(tool_use_id="t", name="ExecuteCode", input={"code": "x.compute()"}, status="running")
    card.progress = {"output_tail": "", "compute": "<b>dask</b>: 1/2 tasks"}
    html = card_html(card)
    assert "&lt;b&gt;dask&lt;/b&gt;: 1/2 tasks" in html and "<b>dask</b>" not in html
