"""The progress of a Dask or Spark computation while one ExecuteCode call runs.

A long ``.compute()`` or Spark action prints nothing Python sees: Dask's progress bar is
opt-in and Spark's console progress is written by the JVM. So while the call runs, a
watcher counts what the computation itself reports (a ``dask.callbacks.Callback``; the
``SparkContext``'s status tracker for the jobs of a job group set for this call) and a
thread renders one line from it, at most once every :data:`INTERVAL_S` and only once the
call has run that long (a call that ends fast shows nothing). The model gets one line of
summary in the call's result (:meth:`ComputeWatch.summary`), never the stream.

Nothing here computes anything or imports Dask or PySpark: a library is watched only when
the user's code already imported it (``sys.modules``), and Spark only when a
``SparkContext`` is active. Stopping the call cancels its Spark job group (the job would
otherwise run on in the JVM after the Python side gave up); Dask's local schedulers stop
with the interrupted call. Dask's distributed scheduler is not watched.
"""

from __future__ import annotations

import logging
import sys
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from nb_agent.wording import plural

log = logging.getLogger(__name__)

INTERVAL_S = 1.0
"""The first line shows after this long, the next ones at most this often."""
SPARK_GROUP_PROPERTIES = ("spark.jobGroup.id", "spark.job.description", "spark.job.interruptOnCancel")


class _Watch(Protocol):
    def line(self) -> str | None: ...

    def summary(self) -> str | None: ...

    def close(self, *, cancel: bool) -> None: ...


@dataclass(kw_only=True)
class _DaskCounts:
    computes: int = 0
    tasks: int = 0
    done: int = 0


class _DaskTally:
    """What the Dask callback counts into. The callback holds this, not the watch that holds
    the callback: the two would be a cycle per call that only a full collection frees."""

    def __init__(self) -> None:
        self.counts = _DaskCounts()
        self.lock = threading.Lock()

    def start_state(self, graph: Any, state: dict[str, Any]) -> None:
        tasks = sum(len(state[k]) for k in ("ready", "waiting", "running", "finished") if k in state)
        with self.lock:
            self.counts.computes += 1
            self.counts.tasks += tasks
            self.counts.done += len(state.get("finished", ()))

    def posttask(self, key: Any, result: Any, graph: Any, state: Any, worker_id: Any) -> None:
        with self.lock:
            self.counts.done += 1


class _DaskWatch:
    """Counts the tasks of every local-scheduler compute while registered."""

    def __init__(self, callbacks: Any) -> None:
        tally = _DaskTally()
        self._counts = tally.counts
        self._lock = tally.lock
        self._callback = callbacks.Callback(start_state=tally.start_state, posttask=tally.posttask)
        self._callback.register()

    def line(self) -> str | None:
        with self._lock:
            counts = _DaskCounts(computes=self._counts.computes, tasks=self._counts.tasks, done=self._counts.done)
        if not counts.tasks:
            return None
        return f"dask: {counts.done:,}/{plural(counts.tasks, 'task')}" + (f" ({counts.computes} computes)" if counts.computes > 1 else "")

    def summary(self) -> str | None:
        with self._lock:
            counts = self._counts
            if not counts.computes:
                return None
            return f"dask: {plural(counts.tasks, 'task')}" + (f" in {counts.computes} computes" if counts.computes > 1 else "")

    def close(self, *, cancel: bool) -> None:
        self._callback.unregister()


@dataclass(kw_only=True)
class SparkCounts:
    """The stages and tasks of one call's Spark jobs, as the status tracker has them."""

    jobs: int = 0
    stages: int = 0
    stages_running: int = 0
    tasks: int = 0
    tasks_done: int = 0
    tasks_running: int = 0


class _SparkWatch:
    """Puts the call's Spark jobs in a job group of their own (so they can be counted and
    cancelled) and reads their stages from the status tracker."""

    def __init__(self, context: Any) -> None:
        self._context = context
        self.group = f"nb_agent-{uuid.uuid4().hex[:12]}"
        self._previous = {name: context.getLocalProperty(name) for name in SPARK_GROUP_PROPERTIES}
        context.setJobGroup(self.group, "nb_agent ExecuteCode", interruptOnCancel=True)

    def counts(self) -> SparkCounts:
        tracker = self._context.statusTracker()
        counts = SparkCounts()
        for job_id in tracker.getJobIdsForGroup(self.group):
            job = tracker.getJobInfo(job_id)
            if job is None:
                continue
            counts.jobs += 1
            for stage_id in job.stageIds:
                stage = tracker.getStageInfo(stage_id)
                if stage is None or not (stage.numCompletedTasks or stage.numActiveTasks or stage.numFailedTasks):
                    continue  # not started yet, or skipped (its output was reused)
                counts.stages += 1
                counts.stages_running += stage.numCompletedTasks < stage.numTasks
                counts.tasks += stage.numTasks
                counts.tasks_done += stage.numCompletedTasks
                counts.tasks_running += stage.numActiveTasks
        return counts

    def line(self) -> str | None:
        counts = self.counts()
        if not counts.jobs:
            return None
        running = f", {counts.tasks_running:,} running" if counts.tasks_running else ""
        stages = f"{plural(counts.stages, 'stage')} ({counts.stages_running} running)"
        return f"spark: {counts.tasks_done:,}/{plural(counts.tasks, 'task')}{running}, {stages}, {plural(counts.jobs, 'job')}"

    def summary(self) -> str | None:
        counts = self.counts()
        if not counts.jobs:
            return None
        return f"spark: {plural(counts.stages, 'stage')}, {plural(counts.tasks_done, 'task')}" + (f" in {counts.jobs} jobs" if counts.jobs > 1 else "")

    def close(self, *, cancel: bool) -> None:
        if cancel:
            self._context.cancelJobGroup(self.group)
        for name, value in self._previous.items():
            self._context.setLocalProperty(name, value)


def _dask_watch() -> _Watch | None:
    if "dask" not in sys.modules:
        return None
    from dask import callbacks  # the user's code imported dask already

    return _DaskWatch(callbacks)


def _spark_watch() -> _Watch | None:
    pyspark = sys.modules.get("pyspark")
    context = getattr(getattr(pyspark, "SparkContext", None), "_active_spark_context", None)
    return _SparkWatch(context) if context is not None else None


class ComputeWatch:
    """The watchers of one call plus the thread that reports their line.

    ``report(line)`` is called on that thread, at most once every :data:`INTERVAL_S`, first
    after :data:`INTERVAL_S`, and only with a line that changed. :meth:`close` stops the
    thread before it returns: no report comes after it.
    """

    def __init__(self, report: Callable[[str], None], *, interval: float | None = None) -> None:
        self._report = report
        self._interval = INTERVAL_S if interval is None else interval
        self._watches: list[_Watch] = []
        for make in (_dask_watch, _spark_watch):
            try:
                watch = make()
            except Exception:  # the code runs anyway, without this progress
                log.warning("cannot watch the computation's progress", exc_info=True)
                continue
            if watch is not None:
                self._watches.append(watch)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        if self._watches:
            self._thread = threading.Thread(target=self._run, name="nb_agent-compute-progress", daemon=True)
            self._thread.start()

    def _line(self) -> str | None:
        lines = []
        for watch in self._watches:
            try:
                line = watch.line()
            except Exception:  # e.g. the SparkContext was stopped by the code
                log.debug("progress unavailable", exc_info=True)
                continue
            if line:
                lines.append(line)
        return " · ".join(lines) or None

    def _run(self) -> None:
        shown: str | None = None
        while not self._stop.wait(self._interval):
            line = self._line()
            if line is not None and line != shown and not self._stop.is_set():
                shown = line
                self._report(line)

    def summary(self) -> str | None:
        """One line: what ran (``dask: 1,234 tasks``; ``spark: 3 stages, 212 tasks``)."""
        parts = []
        for watch in self._watches:
            try:
                part = watch.summary()
            except Exception:
                log.debug("no summary", exc_info=True)
                continue
            if part:
                parts.append(part)
        return "; ".join(parts) or None

    def close(self, *, cancel: bool = False) -> None:
        """Stop reporting; ``cancel``: the call was stopped, cancel what it started."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        for watch in self._watches:
            try:
                watch.close(cancel=cancel)
            except Exception:  # e.g. the code stopped the SparkContext itself
                log.debug("could not close a progress watch", exc_info=True)
