"""pandas DataFrames and Series. pandas 3 is copy-on-write: ``obj.copy(deep=False)`` is a
true snapshot at the cost of a few objects, and once such a copy exists any change in
place makes pandas copy the changed block, so the object's blocks no longer sit where
they were. The change test compares where the data sits (block, index and column
arrays), never the values, and so never runs a user's ``__eq__``.

The block layout is pandas' internal API (``_mgr.blocks``): when it is not as expected
the key is ``None`` and the change is "unknown". pandas is never imported here.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from nb_agent.objects.kinds import ChangeTest, Facts, ObjectKind, mro_has, root_module
from nb_agent.objects.numpy_kind import ndarray_key

MAX_KEY_PARTS = 10_000
"""A frame with more blocks or chunks than this has no cheap key."""


def array_key(array: Any) -> Hashable | None:
    """Where a 1-d array's data sits: numpy arrays and the extension arrays pandas ships
    (string, masked, categorical, datetime, interval, sparse, Arrow-backed)."""
    if hasattr(array, "__array_interface__"):
        return ndarray_key(array)
    if hasattr(array, "_ndarray"):  # NDArrayBacked: strings, datetimes, categorical codes
        key = array_key(array._ndarray)
        categories = getattr(array, "categories", None) if type(array).__name__ == "Categorical" else None
        return key if categories is None else (key, index_key(categories), bool(array.ordered))
    if hasattr(array, "_data") and hasattr(array, "_mask"):  # masked: Int64, boolean, Float64
        return (array_key(array._data), array_key(array._mask))
    if hasattr(array, "_pa_array"):  # Arrow-backed
        chunks = array._pa_array.chunks
        if len(chunks) > MAX_KEY_PARTS:
            return None
        return tuple(tuple(b.address if b is not None else 0 for b in c.buffers()) + (c.offset, len(c)) for c in chunks)
    if hasattr(array, "_left") and hasattr(array, "_right"):  # intervals
        return (array_key(array._left), array_key(array._right), array.closed)
    if hasattr(array, "_sparse_values"):
        return (array_key(array._sparse_values), id(array.sp_index))
    return None


def index_key(index: Any) -> Hashable | None:
    """An Index: its kind, names and data (a RangeIndex by its numbers)."""
    names = tuple(map(_label, index.names))
    if type(index).__name__ == "RangeIndex":
        return ("range", index.start, index.stop, index.step, names)
    if type(index).__name__ == "MultiIndex":
        levels = tuple(index_key(level) for level in index.levels)
        return ("multi", levels, tuple(array_key(codes) for codes in index.codes), names)
    return ("index", array_key(index._data), len(index), names)


def _label(label: Any) -> Hashable:
    return label if isinstance(label, (str, int, float, type(None))) else ("id", id(label))


def _locations(locs: Any) -> Hashable:
    """Which columns a block holds (slices are not hashable before Python 3.12)."""
    if locs.is_slice_like:
        where = locs.as_slice
        return ("slice", where.start, where.stop, where.step)
    return tuple(int(i) for i in locs.as_array)


def frame_key(value: Any) -> Hashable | None:
    """Where a DataFrame's or Series' data sits; ``None`` when it cannot be read cheaply."""
    try:
        blocks = value._mgr.blocks
        if len(blocks) > MAX_KEY_PARTS:
            return None
        parts = []
        for block in blocks:
            key = array_key(block.values)
            if key is None:
                return None
            parts.append((key, _locations(block.mgr_locs)))
        axes = [index_key(value.index)]
        if hasattr(value, "columns"):
            axes.append(index_key(value.columns))
        else:
            axes.append(("name", _label(value.name)))
        if any(axis is None for axis in axes[:2]) or None in parts:
            return None
        return (tuple(parts), tuple(axes))
    except Exception:  # noqa: BLE001 - another pandas layout: no cheap key
        return None


class _Pinned:
    """A frame's key, with a shallow copy that keeps pandas copying on write (so a later
    change in place moves the data and shows in the key). Compared by key only."""

    __slots__ = ("key", "pin")

    def __init__(self, key: Hashable, pin: Any) -> None:
        self.key, self.pin = key, pin

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Pinned) and other.key == self.key

    def __hash__(self) -> int:
        return hash(self.key)


def _blocks_nbytes(value: Any) -> int:
    return sum(int(block.values.nbytes) for block in value._mgr.blocks)


class PandasKind(ObjectKind):
    name = "pandas"
    in_place = "tracked"

    def matches(self, cls: type) -> bool:
        return mro_has(cls, "pandas", "DataFrame") or mro_has(cls, "pandas", "Series")

    def type_name(self, value: Any) -> str:
        cls = type(value)
        return f"pandas.{cls.__qualname__}" if root_module(cls) == "pandas" else cls.__qualname__

    def shape(self, value: Any) -> tuple[int, ...] | None:
        return tuple(int(d) for d in value.shape)

    def length(self, value: Any) -> int | None:
        return len(value.index)

    def dtype(self, value: Any) -> str | None:
        return None if hasattr(value, "columns") else str(value.dtype)

    def columns(self, value: Any) -> list[str] | None:
        return [str(c) for c in value.columns] if hasattr(value, "columns") else None

    def memory(self, value: Any) -> int | None:
        try:
            return _blocks_nbytes(value) + int(value.index.nbytes)
        except Exception:  # noqa: BLE001 - another layout: pandas' own count
            usage = value.memory_usage(index=True, deep=False)
            return int(usage.sum()) if hasattr(usage, "sum") else int(usage)

    def facts(self, value: Any) -> Facts:
        return Facts(type_name=self.type_name(value), shape=self.shape(value), length=self.length(value), dtype=self.dtype(value))

    def may_mutate(self, value: Any, method: str) -> bool:
        return True  # snapshots cost nothing: every frame is covered

    def content_key(self, value: Any) -> Hashable | None:
        return frame_key(value)

    def probe(self, value: Any) -> Hashable | None:
        return frame_key(value)

    def digest(self, value: Any) -> Hashable | None:
        key = frame_key(value)
        return None if key is None else _Pinned(key, value.copy(deep=False))

    def copy_cost(self, value: Any) -> int | None:
        return 0

    def snapshot(self, value: Any) -> Any:
        return value.copy(deep=False)

    def compare(self, value: Any, snapshot: Any) -> ChangeTest:
        now, then = frame_key(value), frame_key(snapshot)
        if now is None or then is None:
            return "unknown"
        same_name = hasattr(value, "columns") or _label(value.name) == _label(snapshot.name)
        return "same" if now == then and same_name else "changed"

    def restore(self, value: Any, snapshot: Any) -> Any:
        fresh = snapshot.copy(deep=False)  # copy-on-write keeps the snapshot intact
        try:
            value._update_inplace(fresh)  # in place: other references see the restored frame
            if not hasattr(value, "columns"):
                value.name = snapshot.name
            return value
        except Exception:  # noqa: BLE001 - another pandas: bind the restored copy instead
            return fresh

    def retained(self, value: Any, snapshot: Any) -> int:
        try:
            live = {array_key(block.values) for block in value._mgr.blocks}
            held = [span for block in value._mgr.blocks if (span := _buffer(block.values)) is not None]
            return sum(
                int(b.values.nbytes)
                for b in snapshot._mgr.blocks
                if array_key(b.values) not in live and not _inside(_buffer(b.values), held)
            )
        except Exception:  # noqa: BLE001
            return int(self.memory(snapshot) or 0)


def _buffer(array: Any) -> tuple[int, int] | None:
    """The memory (start, end) of the numpy buffer ``array`` is a view of (``None``: not numpy)."""
    root = array
    while hasattr(getattr(root, "base", None), "__array_interface__"):
        root = root.base
    if not hasattr(root, "__array_interface__"):
        return None
    start = root.__array_interface__["data"][0]
    return (start, start + int(root.nbytes))


def _inside(span: tuple[int, int] | None, held: list[tuple[int, int]]) -> bool:
    """A snapshot block in a buffer the live object still holds (through a view) keeps
    nothing alive of its own: a change in place under copy-on-write copies the changed
    columns out of a consolidated block and leaves the others as views of it."""
    return span is not None and any(start <= span[0] and span[1] <= end for start, end in held)
