"""ExecuteCode in an in-process IPython shell (no kernel): values, output, errors, await,
interrupts, figures."""

from __future__ import annotations

import asyncio
import os
import signal
import threading
import time

import pytest

from nb_agent.errors import AbortError
from nb_agent.jupyter.tools import ExecuteCode, KernelBridge
from nb_agent.permissions.types import PermissionAllow
from nb_agent.testing.cycles import cycles_left_behind
from nb_agent.testing.harness import tool_context


@pytest.fixture(scope="module")
def shell():
    from IPython.core.interactiveshell import InteractiveShell

    return InteractiveShell.instance()


def _run(shell, code, *, live=None, progress=None):
    tool = ExecuteCode(KernelBridge(shell=shell, live_output=live))
    parsed = tool.parse_input({"code": code})
    result = asyncio.run(tool.call(parsed, tool_context([tool]), (progress if progress is not None else []).append))
    return result, tool.map_result_to_block(result.data, "t")


def test_trailing_expression_and_stdout(shell):
    result, content = _run(shell, "unit_a = 20\nprint('side effect')\nunit_a + 1")
    assert not result.is_error
    assert content == "[stdout]\nside effect\n\n[result]\n21"
    assert shell.user_ns["unit_a"] == 20


def test_no_output(shell):
    _, content = _run(shell, "unit_b = 1")
    assert content == "(the code ran without output)"


def test_exception_is_an_error_result_with_a_clean_traceback(shell):
    result, content = _run(shell, "print('before')\ndef f():\n    raise ValueError('bad \\x1b[31mred\\x1b[0m')\nf()")
    assert result.is_error
    assert "[stdout]\nbefore" in content and "ValueError: bad red" in content
    assert "raise ValueError" in content and "\x1b[" not in content
    assert "execute_code.py" not in content  # our own frames are cut


def test_syntax_error(shell):
    result, content = _run(shell, "def broken(:\n    pass")
    assert result.is_error and "SyntaxError" in content


def test_ipython_syntax_and_top_level_await(shell):
    _, content = _run(shell, "import asyncio\nawait asyncio.sleep(0.01)\nunit_c = !echo from-shell\nunit_c[0]")
    assert "'from-shell'" in content


def test_stderr_and_display_are_captured(shell):
    from IPython.display import display

    shell.user_ns["display"] = display
    _, content = _run(shell, "import sys\nprint('oops', file=sys.stderr)\ndisplay('shown')")
    assert "[stderr]\noops" in content and "[display]\n'shown'" in content


def test_long_output_is_cut(shell):
    _, content = _run(shell, "print('x' * 100_000)")
    assert "characters truncated" in content and len(content) < 25_000


def test_progress_and_live_output(shell):
    progress, live = [], []
    _run(shell, "import time\nfor i in range(3):\n    print('line', i)\n    time.sleep(0.3)", live=lambda name, progress: live.append(progress["output_tail"]), progress=progress)
    assert progress and "line 2" in progress[-1]["output_tail"]
    assert any("line 0" in tail for tail in live)


class _ThreadRecorder(list):
    """Progress reports with the thread each came on."""

    def append(self, progress):
        super().append((threading.current_thread(), progress))


def test_output_from_another_thread_is_reported_on_the_loops_thread(shell):
    # A Dask task or a thread of the user's code prints: the report wakes the pipeline's
    # asyncio waiter, which only the loop's thread may do.
    progress = _ThreadRecorder()
    _run(shell, "import threading\nunit_t = threading.Thread(target=lambda: print('from a thread'))\nunit_t.start()\nunit_t.join()", progress=progress)
    assert progress and any("from a thread" in report["output_tail"] for _, report in progress)
    assert {thread for thread, _ in progress} == {threading.main_thread()}


def test_new_figures_become_images_and_are_closed(shell):
    import matplotlib

    matplotlib.use("agg")
    result, content = _run(shell, "import matplotlib.pyplot as plt\nplt.figure()\nplt.plot([1, 2])\nplt.figure()\nplt.bar([1], [2])")
    images = [b for b in content if b["type"] == "image"]
    assert len(images) == 2 and "[2 image(s) attached below]" in content[0]["text"]
    import matplotlib.pyplot as plt

    assert plt.get_fignums() == []


def test_sigint_interrupts_a_busy_loop_and_chains_the_previous_handler(shell):
    calls = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: calls.append(signum))
    try:
        timer = threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT))
        timer.start()
        started = time.monotonic()
        with pytest.raises(AbortError):
            _run(shell, "unit_spin = 0\nwhile True:\n    unit_spin += 1")
        # Generous: the loop never ends by itself; the bound only separates that from a stop.
        assert time.monotonic() - started < 20
        assert calls == [signal.SIGINT]  # ipykernel's handler would have scheduled the cell's cancellation
        assert shell.user_ns["unit_spin"] > 0
        assert signal.getsignal(signal.SIGINT) is not None and signal.getsignal(signal.SIGINT) != ExecuteCode
    finally:
        signal.signal(signal.SIGINT, previous)


def test_system_exit_is_an_error_not_a_crash(shell):
    result, content = _run(shell, "raise SystemExit(3)")
    assert result.is_error and "SystemExit" in content


def test_flags_leave_the_asking_to_the_rule_engine(shell):
    tool = ExecuteCode(KernelBridge(shell=shell))
    parsed = tool.parse_input({"code": "1"})
    assert not tool.is_concurrency_safe(parsed) and not tool.is_read_only(parsed)
    # no tool-level ask: it would outrank an "Always allow" rule (see test_transformer_and_policy)
    assert isinstance(asyncio.run(tool.check_permissions(parsed, tool_context([tool]))), PermissionAllow)


def test_figures_enter_the_conversation_fitted_for_the_model(shell):
    import base64
    import io

    import matplotlib
    from PIL import Image

    matplotlib.use("agg")
    code = "import matplotlib.pyplot as plt\nfig = plt.figure(figsize=(20, 12), dpi=100)\nplt.scatter(range(500), [i % 37 for i in range(500)])"
    _, content = _run(shell, code)
    (image,) = [b for b in content if b["type"] == "image"]
    decoded = Image.open(io.BytesIO(base64.b64decode(image["source"]["data"])))
    assert max(decoded.size) <= 1024  # not the 2000 px the figure was drawn at
    assert image["source"]["media_type"] == "image/" + decoded.format.lower()


def test_lines_are_kept_only_for_code_that_can_run_again(shell):
    import linecache

    before = {name for name in linecache.cache if name.startswith("<agent-code-")}
    result, content = _run(shell, "unit_d = 1\nraise KeyError('top level')")
    assert result.is_error and "raise KeyError('top level')" in content  # read while the call ran
    _run(shell, "print('nothing defined')")
    assert {name for name in linecache.cache if name.startswith("<agent-code-")} == before

    _run(shell, "def unit_e():\n    raise ValueError('later')")
    _run(shell, "unit_f = [n * 2 for n in range(3)]")  # a comprehension's code: kept too
    result, content = _run(shell, "unit_e()")
    assert result.is_error and "raise ValueError('later')" in content  # the function's lines, after its call ended
    assert len({name for name in linecache.cache if name.startswith("<agent-code-")} - before) == 2


def test_calls_leave_nothing_in_reference_cycles(shell):
    _run(shell, "print('warm-up')")
    with cycles_left_behind() as left:
        for i in range(3):
            _run(shell, f"print('row,' * {100 + i})")
    assert left.of_package("nb_agent") == []


def test_calls_that_watch_dask_leave_nothing_in_reference_cycles(shell):
    pytest.importorskip("dask")
    _run(shell, "import dask")  # imported: every call now watches its computations
    with cycles_left_behind() as left:
        for i in range(3):
            _run(shell, f"dask.delayed(sum)([{i}, 1]).compute()")
    assert left.of_package("nb_agent") == []
