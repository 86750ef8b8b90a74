"""Lazy frames of Dask, Polars and Spark, described from their metadata, never computed.

A Dask collection carries an empty pandas frame of its columns and dtypes (``_meta``) and its
partition count; a Polars LazyFrame resolves its schema from the query plan; a Spark SQL
DataFrame's columns and types come from its analysed plan, with no job. (pandas-on-Spark
frames and Dask bags stay plain lazy objects: type only.) Their row counts,
memory and contents are what a computation would give: never asked for here (``len``,
``.shape[0]``, ``.head()``, ``.collect()`` and ``.compute()`` all run the plan).
"""

from __future__ import annotations

import math
from typing import Any

from nb_agent.objects.kinds import ObjectKind, mro_has
from nb_agent.wording import plural

MAX_TYPED_COLUMNS = 500
"""Columns whose types a description lists at most (wide Spark tables have thousands)."""


def _lazy_count(number: int, noun: str) -> str:
    return f"lazy, {plural(number, noun)}"


class LazyFrameKind(ObjectKind):
    """Common ground: lazy, no size, not watched for changes in place (nothing cheap tells)."""

    lazy = True

    def memory(self, value: Any) -> int | None:
        return None

    def plan(self, value: Any) -> str | None:
        return repr(value)  # Dask's structure, Spark's schema: neither runs anything


class DaskKind(LazyFrameKind):
    """Dask DataFrames, Series and Arrays: columns and dtypes from ``_meta``, partitions or
    chunks from the graph's layout, an array's shape from its chunks (NaN where unknown)."""

    name = "dask"

    def matches(self, cls: type) -> bool:
        return any(mro_has(cls, "dask", name) for name in ("DataFrame", "Series", "Array"))

    def shape(self, value: Any) -> tuple[int, ...] | None:
        if not mro_has(type(value), "dask", "Array"):
            return None  # a frame's row count is a computation
        shape = tuple(value.shape)
        return None if any(isinstance(d, float) and math.isnan(d) for d in shape) else tuple(int(d) for d in shape)

    def dtype(self, value: Any) -> str | None:
        return None if mro_has(type(value), "dask", "DataFrame") else str(value.dtype)

    def columns(self, value: Any) -> list[str] | None:
        return [str(c) for c in value.columns] if mro_has(type(value), "dask", "DataFrame") else None

    def column_types(self, value: Any) -> list[tuple[str, str]] | None:
        if not mro_has(type(value), "dask", "DataFrame"):
            return None
        return [(str(c), str(t)) for c, t in list(value.dtypes.items())[:MAX_TYPED_COLUMNS]]

    def lazy_note(self, value: Any) -> str | None:
        if mro_has(type(value), "dask", "Array"):
            return _lazy_count(math.prod(value.numblocks), "chunk")
        return _lazy_count(int(value.npartitions), "partition")


class PolarsLazyKind(LazyFrameKind):
    """Polars LazyFrames: the schema the plan resolves to (``collect_schema``: a scan reads
    its files' metadata, nothing is collected)."""

    name = "polars_lazy"

    def matches(self, cls: type) -> bool:
        return mro_has(cls, "polars", "LazyFrame")

    def columns(self, value: Any) -> list[str] | None:
        return [str(c) for c in value.collect_schema().names()]

    def column_types(self, value: Any) -> list[tuple[str, str]] | None:
        return [(str(c), str(t)) for c, t in list(value.collect_schema().items())[:MAX_TYPED_COLUMNS]]

    def plan(self, value: Any) -> str | None:
        return str(value.explain(optimized=False))  # the logical plan as written, not run

    def lazy_note(self, value: Any) -> str | None:
        return "lazy, not collected"


class SparkKind(LazyFrameKind):
    """Spark SQL DataFrames: columns and types from the schema, which Spark has from analysing
    the plan (no job runs)."""

    name = "spark"

    def matches(self, cls: type) -> bool:
        return mro_has(cls, "pyspark.sql", "DataFrame")

    def columns(self, value: Any) -> list[str] | None:
        return [str(c) for c in value.columns]

    def column_types(self, value: Any) -> list[tuple[str, str]] | None:
        return [(str(c), str(t)) for c, t in list(value.dtypes)[:MAX_TYPED_COLUMNS]]

    def lazy_note(self, value: Any) -> str | None:
        return "lazy, not counted"


LAZY_FRAME_KINDS: tuple[ObjectKind, ...] = (DaskKind(), PolarsLazyKind(), SparkKind())

__all__ = ["LAZY_FRAME_KINDS", "DaskKind", "LazyFrameKind", "PolarsLazyKind", "SparkKind"]
