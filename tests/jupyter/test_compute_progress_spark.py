"""A Spark job's progress while ExecuteCode runs it, in a real kernel with a real local
Spark session (slow: one test, one JVM): the card shows the job's stage line while the
job waits, the model gets one line, and Stop cancels the job (it would otherwise run on in
the JVM) and leaves Spark usable. Spark's tasks wait for a file the test writes once the
card showed the line: events, never time."""

from __future__ import annotations

import json

import pytest

from nb_agent.testing import Reply, text, tool_use

pytest.importorskip("pyspark")

SPARK_START_S = 600  # a generous bound: a JVM and a Spark session on a loaded machine (about 2 min seen)
JOB_CODE = "spark.sparkContext.parallelize(range(8), 4).map(held).count()"


def _setup(marker: str) -> str:
    return f"""\
import os, sys, time
from pyspark.sql import SparkSession
spark = SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false").getOrCreate()
def held(x, marker={marker!r}):
    while not os.path.exists(marker):  # the test writes it once the card showed the job
        time.sleep(0.05)
    return x
def active_jobs_after_cancel():
    tracker, waited = spark.sparkContext.statusTracker(), 0
    while tracker.getActiveJobsIds() and waited < 1200:  # a hang detector: cancelled jobs end
        time.sleep(0.1)
        waited += 1
    return len(tracker.getActiveJobsIds())
"""


def _card_shows_spark(kernel):
    return kernel.widgets.ever(lambda s: "spark: 0/4 tasks" in str(s.get("value", "")) and "1 job" in str(s.get("value", "")))


@pytest.mark.timeout(1500)  # a JVM and a Spark session start in it
def test_a_spark_job_shows_its_stages_gives_one_line_and_stop_cancels_it(make_kernel, helpers, tmp_path):
    kernel = make_kernel("spark-progress")
    assert kernel.run("%load_ext nb_agent").status == "ok"
    marker = tmp_path / "release"
    setup = kernel.run(_setup(str(marker)), timeout=SPARK_START_S)
    assert setup.status == "ok", setup.stdout + str(setup.errors)
    try:
        # a job that runs until the card has shown it
        start = len(kernel.server.requests)
        kernel.server.script.add(Reply(content=[tool_use("ExecuteCode", {"code": JOB_CODE})]), Reply(content=[text("Counted.")]))
        run = kernel.start("%%agent --permission-mode bypassPermissions\ncount them")
        kernel.wait_for(run, lambda: _card_shows_spark(kernel), timeout=SPARK_START_S)
        marker.write_text("go")
        kernel.wait(run, timeout=SPARK_START_S)
        assert run.status == "ok", run.errors
        result = helpers.last_user_text(kernel.server.requests[start:][1])
        assert result.endswith("[compute]\nspark: 1 stage, 4 tasks"), result
        assert "0/4" not in json.dumps(kernel.server.requests[start:])  # the model never gets the progress

        # Stop while a job runs: the job is cancelled, Spark still works
        marker.unlink()
        kernel.widgets.states.clear()
        kernel.widgets.closed.clear()
        kernel.server.script.add(Reply(content=[tool_use("ExecuteCode", {"code": JOB_CODE})]), Reply(content=[text("unused")]))
        run = kernel.start("%%agent --permission-mode bypassPermissions\ncount them again")
        kernel.wait_for(run, lambda: _card_shows_spark(kernel), timeout=SPARK_START_S)
        kernel.interrupt()
        kernel.wait(run, timeout=SPARK_START_S)
        assert run.status == "error" and run.errors[0]["ename"] == "AgentInterrupted", run.errors
        kernel.server.script._turns.clear()
        after = kernel.run("print(active_jobs_after_cancel(), spark.range(10).count(), 'dask' in sys.modules)", timeout=SPARK_START_S)
        assert after.status == "ok" and after.stdout.split() == ["0", "10", "False"], after.stdout + str(after.errors)
    finally:
        marker.write_text("go")
        kernel.run("spark.stop()", timeout=120)
