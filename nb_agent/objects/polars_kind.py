"""Polars DataFrames and Series, described from their metadata (never watched for changes
in place: no cheap test, so a call that may change one says "unknown")."""

from __future__ import annotations

from typing import Any

from nb_agent.objects.kinds import ObjectKind, mro_has


class PolarsFrameKind(ObjectKind):
    name = "polars"

    def matches(self, cls: type) -> bool:
        return mro_has(cls, "polars", "DataFrame") or mro_has(cls, "polars", "Series")

    def shape(self, value: Any) -> tuple[int, ...] | None:
        return tuple(int(d) for d in value.shape)

    def length(self, value: Any) -> int | None:
        return int(value.shape[0])

    def dtype(self, value: Any) -> str | None:
        return None if hasattr(value, "columns") else str(value.dtype)

    def columns(self, value: Any) -> list[str] | None:
        return [str(c) for c in value.columns] if hasattr(value, "columns") else None

    def memory(self, value: Any) -> int | None:
        return int(value.estimated_size())
