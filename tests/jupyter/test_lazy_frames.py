"""Lazy frames in a real kernel: the variables summary, InspectVariables and the namespace
changes of an ExecuteCode call describe a Dask DataFrame and a Polars LazyFrame from their
metadata, and nothing runs them (a counting Dask scheduler and a Polars batch function
that records its calls; both are shown to count when the test computes them itself)."""

from __future__ import annotations

import json

import pytest

from nb_agent.testing import Reply, text, tool_use

SETUP = """\
import dask, dask.dataframe as dd, pandas as pd, polars as pl
lazy_computes = []
def counting_scheduler(graph, keys, **kwargs):
    lazy_computes.append("dask")
    return dask.get(graph, keys, **kwargs)
dask.config.set(scheduler=counting_scheduler)
def polars_batch(frame):
    lazy_computes.append("polars")
    return frame
sales = dd.from_pandas(pd.DataFrame({"region": list("abcd") * 25, "amount": range(100)}), npartitions=4)
events = pl.LazyFrame({"user": [1, 2, 3], "ms": [5.0, 7.5, 9.0]}).map_batches(polars_batch).with_columns(seconds=pl.col("ms") / 1000)
"""


def test_lazy_frames_are_described_without_computing_them(kernel, requests_since, helpers):
    assert kernel.run(SETUP).status == "ok"
    kernel.server.script.add(
        Reply(content=[tool_use("InspectVariables", {"name": "sales"}), tool_use("InspectVariables", {"name": "events"}), tool_use("InspectVariables", {})]),
        Reply(content=[tool_use("ExecuteCode", {"code": "big_sales = sales[sales.amount > 10]\nlazy_events = events.filter(pl.col('user') > 1)"})]),
        Reply(content=[text("Described.")]),
    )
    run = kernel.run("%%agent --permission-mode bypassPermissions\nwhat data do I have?", timeout=90)
    assert run.status == "ok", run.errors
    requests = requests_since()
    summary = json.dumps(requests[0]["messages"][-1])
    assert "sales: dask.DataFrame, lazy, 4 partitions, columns region, amount" in summary, summary
    assert "events: polars.LazyFrame, lazy, not collected, columns user, ms, seconds" in summary, summary
    inspected = helpers.last_user_text(requests[1])
    assert "amount: int64" in inspected and "npartitions=4" in inspected  # Dask's columns and structure
    assert "seconds: Float64" in inspected and "WITH_COLUMNS" in inspected  # Polars' schema and plan
    assert "Not computed" in inspected and "lazy, 4 partitions" in inspected  # and the table's line
    changes = helpers.last_user_text(requests[2])
    assert "big_sales: created (dask.DataFrame, lazy, 4 partitions" in changes, changes
    assert "lazy_events: created (polars.LazyFrame, lazy, not collected" in changes, changes
    assert kernel.run("print(lazy_computes)").stdout.strip() == "[]"
    # the counters count: computing them here runs each once
    counted = kernel.run("sales.amount.sum().compute(), events.collect()\nprint(sorted(set(lazy_computes)))")
    assert counted.stdout.strip() == "['dask', 'polars']", counted.stdout + str(counted.errors)


SPARK_SETUP = """\
from pyspark.sql import SparkSession
spark = SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false").getOrCreate()
orders = spark.createDataFrame([(1, "a", 2.5), (2, "b", 4.0)], ["id", "sku", "price"]).filter("price > 3")
def spark_jobs():
    return len(spark.sparkContext.statusTracker().getJobIdsForGroup(None))
print(spark_jobs())
"""
SPARK_START_S = 600  # a generous bound: a JVM and a Spark session on a loaded machine (about 2 min seen)


@pytest.mark.timeout(1200)  # a JVM and a Spark session start in it
def test_a_spark_dataframe_is_described_without_a_job(make_kernel, helpers):
    kernel = make_kernel("spark")
    assert kernel.run("%load_ext nb_agent").status == "ok"
    setup = kernel.run(SPARK_SETUP, timeout=SPARK_START_S)
    assert setup.status == "ok" and setup.stdout.strip() == "0", setup.stdout + str(setup.errors)
    try:
        start = len(kernel.server.requests)
        kernel.server.script.add(Reply(content=[tool_use("InspectVariables", {"name": "orders"})]), Reply(content=[text("Described.")]))
        run = kernel.run("%%agent\nwhat are the orders?", timeout=120)
        assert run.status == "ok", run.errors
        requests = kernel.server.requests[start:]
        assert "orders: pyspark.DataFrame, lazy, not counted, columns id, sku, price" in json.dumps(requests[0]["messages"][-1])
        inspected = helpers.last_user_text(requests[1])
        assert "price: double" in inspected and "sku: string" in inspected and "Not computed" in inspected, inspected
        assert kernel.run("print(spark_jobs())").stdout.strip() == "0"
        assert kernel.run("orders.count()\nprint(spark_jobs())", timeout=SPARK_START_S).stdout.strip() != "0"  # a job counts
    finally:
        kernel.run("spark.stop()", timeout=120)
