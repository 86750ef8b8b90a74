"""Lazy frames described from metadata with the real libraries: shapes that are layout, not
computation (a Dask array's chunks), unknown ones left out, failures kept to the line."""

from __future__ import annotations

import dask.array as da
import dask.dataframe as dd
import pandas as pd
import polars as pl

from nb_agent.objects import describe_one_line, kind_of, shape_text


def test_a_dask_array_has_its_shape_from_its_chunks_unless_they_are_unknown():
    known = da.ones((1000, 10), chunks=(100, 10))
    assert describe_one_line("x", known) == "x: dask.Array, 1000×10, lazy, 10 chunks"
    frame = dd.from_pandas(pd.DataFrame({"a": range(10)}), npartitions=2)
    unknown = frame[frame.a > 3].to_dask_array()  # rows per partition known only by computing
    assert describe_one_line("y", unknown) == "y: dask.Array, lazy, 2 chunks"


def test_a_dask_series_and_frame():
    frame = dd.from_pandas(pd.DataFrame({"price": [1.0, 2.0], "city": ["a", "b"]}), npartitions=1)
    assert describe_one_line("f", frame) == "f: dask.DataFrame, lazy, 1 partition, columns price, city"
    assert describe_one_line("p", frame.price) == "p: dask.Series, lazy, 1 partition"
    assert kind_of(frame.price).dtype(frame.price) == "float64"
    assert kind_of(frame).column_types(frame) == [("price", "float64"), ("city", "string")]


def test_a_polars_lazy_frame_whose_schema_cannot_be_resolved_keeps_its_type():
    broken = pl.LazyFrame({"a": [1]}).select(pl.col("missing"))  # resolving the schema fails
    assert describe_one_line("q", broken) == "q: polars.LazyFrame, lazy, not collected"
    assert shape_text(pl.LazyFrame({"a": [1]})) == "lazy, not collected"
