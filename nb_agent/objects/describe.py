"""One bounded line per object, from its kind: type, shape or length, a frame's columns,
a scalar's value. Used by the variables summary, InspectVariables and the namespace notes."""

from __future__ import annotations

import types
from typing import Any

from nb_agent.objects.kinds import kind_of

SUMMARY_COLUMNS = 12
SUMMARY_COLUMNS_CHARS = 160
"""A 2,000-column frame must not eat a summary's budget: at most this many names and chars."""


def human_bytes(size: int | None) -> str:
    if size is None:
        return "?"
    value = float(size)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{size} B"


def dims_text(shape: tuple[int, ...]) -> str:
    return "×".join(str(d) for d in shape) if shape else "scalar"


def shape_text(value: Any) -> str:
    """``1000×3`` for array-likes, ``len 12`` for containers and strings, ``lazy, 8
    partitions`` for a lazy frame (its size is a computation), else ``''``."""
    kind = kind_of(value)
    try:
        shape = kind.shape(value)
        size = dims_text(shape) if shape is not None else None
        if size is None and (length := kind.length(value)) is not None:
            size = f"len {length}"
    except Exception:  # noqa: BLE001 - a broken object still gets its name and type
        size = None
    return ", ".join(part for part in (size, _lazy_note(kind, value)) if part)


def _lazy_note(kind: Any, value: Any) -> str | None:
    try:
        return kind.lazy_note(value)
    except Exception:  # noqa: BLE001 - a broken lazy object still gets its name and type
        return None


def type_name(value: Any) -> str:
    return kind_of(value).type_name(value)


def memory(value: Any) -> int | None:
    try:
        return kind_of(value).memory(value)
    except Exception:  # noqa: BLE001 - sizing is best effort
        return None


def frame_columns(value: Any) -> list[str] | None:
    try:
        return kind_of(value).columns(value)
    except Exception:  # noqa: BLE001
        return None


def columns_text(columns: list[str]) -> str:
    shown: list[str] = []
    size = 0
    for column in columns[:SUMMARY_COLUMNS]:
        name = column if len(column) <= 40 else column[:39] + "…"
        if shown and size + len(name) + 2 > SUMMARY_COLUMNS_CHARS:
            break
        shown.append(name)
        size += len(name) + 2
    rest = len(columns) - len(shown)
    return "columns " + ", ".join(shown) + (f", … +{rest} more" if rest else "")


def short_repr(value: Any, limit: int = 60) -> str:
    """The value of a number, bool, None or string, cut; ``''`` for anything else."""
    if isinstance(value, (int, float, complex, bool)) or value is None:
        text = repr(value)
    elif isinstance(value, str):
        text = repr(value if len(value) <= limit else value[:limit] + "…")
    else:
        return ""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def describe_brief(value: Any) -> str:
    """``pandas.DataFrame, 1000×3, columns a, b, c`` (no name)."""
    parts = [type_name(value)]
    if isinstance(value, (types.FunctionType, type)):
        return parts[0]
    if shape := shape_text(value):
        parts.append(shape)
    if columns := frame_columns(value):
        parts.append(columns_text(columns))
    if short := short_repr(value):
        parts.append(f"= {short}")
    return ", ".join(parts)


def describe_one_line(name: str, value: Any) -> str:
    return f"{name}: {describe_brief(value)}"
