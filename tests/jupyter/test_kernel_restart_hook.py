"""The kernel's shutdown hook: a running run is ended first, and its end gets to leave the
kernel before the shutdown goes on (a real restart through JupyterLab:
tests/browser/test_restart_from_page.py)."""

from __future__ import annotations

from typing import Any

from nb_agent.jupyter import kernel_restart
from nb_agent.jupyter.kernel_restart import RESTART_NOTICE, SHUTDOWN_NOTICE, install, uninstall


class _IOPub:
    """An IOPub thread whose queue runs what is scheduled when the test says."""

    def __init__(self, *, runs: bool) -> None:
        self.runs = runs
        self.scheduled: list[Any] = []

    def schedule(self, f: Any) -> None:
        self.scheduled.append(f)
        if self.runs:
            f()


class _Kernel:
    def __init__(self, iopub: _IOPub) -> None:
        self.iopub_thread = iopub
        self.events: list[str] = []

    def do_shutdown(self, restart: bool) -> dict[str, Any]:
        self.events.append(f"shutdown restart={restart}")
        return {"status": "ok", "restart": restart}


def test_a_stopped_run_is_flushed_then_given_time_before_the_shutdown(monkeypatch):
    slept: list[float] = []
    monkeypatch.setattr(kernel_restart.time, "sleep", slept.append)
    kernel = _Kernel(_IOPub(runs=True))
    install(kernel, lambda notice: kernel.events.append(notice) or True)
    assert kernel.do_shutdown(True) == {"status": "ok", "restart": True}
    assert kernel.events == [RESTART_NOTICE, "shutdown restart=True"]
    assert len(kernel.iopub_thread.scheduled) == 1 and slept == [kernel_restart.TRAVEL_S]
    uninstall(kernel)
    kernel.do_shutdown(False)
    assert kernel.events[-1] == "shutdown restart=False" and len(kernel.events) == 3


def test_no_run_no_wait_and_a_stuck_iopub_thread_is_waited_for_a_bounded_time(monkeypatch):
    slept: list[float] = []
    monkeypatch.setattr(kernel_restart.time, "sleep", slept.append)
    monkeypatch.setattr(kernel_restart, "FLUSH_S", 0.01)
    idle = _Kernel(_IOPub(runs=True))
    install(idle, lambda notice: False)
    idle.do_shutdown(False)
    assert idle.iopub_thread.scheduled == [] and slept == []
    stuck = _Kernel(_IOPub(runs=False))  # never runs what it is given: the shutdown still goes on
    install(stuck, lambda notice: notice == SHUTDOWN_NOTICE)
    stuck.do_shutdown(False)
    assert stuck.events == ["shutdown restart=False"] and len(stuck.iopub_thread.scheduled) == 1


def test_a_failing_stop_never_keeps_the_kernel_from_shutting_down():
    kernel = _Kernel(_IOPub(runs=True))

    def broken(notice: str) -> bool:
        raise RuntimeError("the view is gone")

    install(kernel, broken)
    assert kernel.do_shutdown(True)["status"] == "ok" and kernel.events == ["shutdown restart=True"]
