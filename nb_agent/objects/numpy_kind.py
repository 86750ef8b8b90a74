"""NumPy arrays: copied (within the caller's memory budget) and compared byte for byte;
without a copy, a probe of sampled bytes can show that an array changed, never that it
did not. numpy is never imported here: an array's own methods and ``sys.modules`` do."""

from __future__ import annotations

import sys
import zlib
from collections.abc import Hashable
from typing import Any

from nb_agent.objects.kinds import ChangeTest, ObjectKind, mro_has

MUTATORS = frozenset({"fill", "sort", "resize", "put", "itemset", "partition", "setfield", "setflags", "byteswap"})
PROBE_SAMPLES = 64
PROBE_BYTES = 64
MAX_OBJECT_ELEMENTS = 1_000_000
"""Object arrays are compared element by element (by identity): only this many."""


def ndarray_key(array: Any) -> Hashable:
    """Where an array's data is and how it is laid out (not what it holds)."""
    return (array.__array_interface__["data"][0], array.shape, array.strides, array.dtype.str)


def _np() -> Any:
    return sys.modules["numpy"]  # loaded: an array exists


def _flat_bytes(array: Any) -> Any:
    """The array's bytes as a flat array of the widest unsigned words that fit (a copy only
    when it is not contiguous): comparing 8-byte words is 8 times fewer comparisons."""
    np = _np()
    data = np.ascontiguousarray(array).reshape(-1).view(np.uint8)
    for width in (np.uint64, np.uint32):
        if data.size % np.dtype(width).itemsize == 0 and data.ctypes.data % np.dtype(width).itemsize == 0:
            return data.view(width)
    return data


def _sampled(array: Any) -> Hashable:
    """A fingerprint of sampled contents (``PROBE_SAMPLES`` runs of bytes, and the last
    ones); equal samples prove nothing, different ones prove a change."""
    if array.dtype.hasobject:
        flat = array.reshape(-1)
        step = max(1, flat.size // PROBE_SAMPLES)
        return tuple(id(x) for x in flat[::step][:PROBE_SAMPLES])
    if not array.flags.c_contiguous:
        return None
    data = array.reshape(-1).view(_np().uint8)
    step = max(PROBE_BYTES, data.size // PROBE_SAMPLES)
    sample = b"".join(data[i : i + PROBE_BYTES].tobytes() for i in range(0, data.size, step))
    return (zlib.crc32(sample), zlib.crc32(data[-PROBE_BYTES:].tobytes()))


class NumpyArrayKind(ObjectKind):
    name = "numpy.ndarray"
    in_place = "tracked"

    def matches(self, cls: type) -> bool:
        return mro_has(cls, "numpy", "ndarray")

    def shape(self, value: Any) -> tuple[int, ...] | None:
        return tuple(int(d) for d in value.shape)

    def length(self, value: Any) -> int | None:
        return int(value.shape[0]) if value.shape else None

    def dtype(self, value: Any) -> str | None:
        return str(value.dtype)

    def memory(self, value: Any) -> int | None:
        return int(value.nbytes)

    def may_mutate(self, value: Any, method: str) -> bool:
        return method in MUTATORS

    def may_mutate_part(self, value: Any, method: str) -> bool:
        return method in MUTATORS  # a view's mutators write the array's memory

    def shares_memory(self, value: Any, other: Any) -> bool:
        np = _np()
        return isinstance(other, np.ndarray) and bool(np.may_share_memory(value, other))  # bounds only: O(1)

    def probe(self, value: Any) -> Hashable | None:
        try:
            return (ndarray_key(value), _sampled(value))
        except Exception:  # noqa: BLE001 - an odd subclass: no probe
            return None

    def digest(self, value: Any) -> Hashable | None:
        if value.dtype.hasobject:
            return None if value.size > MAX_OBJECT_ELEMENTS else (value.shape, tuple(id(x) for x in value.reshape(-1)))
        return (value.shape, value.dtype.str, zlib.crc32(_flat_bytes(value)))

    def copy_cost(self, value: Any) -> int | None:
        return int(value.nbytes)

    def snapshot(self, value: Any) -> Any:
        return value.copy()

    def compare(self, value: Any, snapshot: Any) -> ChangeTest:
        if value.shape != snapshot.shape or value.dtype != snapshot.dtype:
            return "changed"
        if value.dtype.hasobject:
            if value.size > MAX_OBJECT_ELEMENTS:
                return "unknown"
            return "same" if all(a is b for a, b in zip(value.reshape(-1), snapshot.reshape(-1))) else "changed"
        if _sampled(value) != _sampled(snapshot):  # most changes show in the samples: no full pass
            return "changed"
        return "same" if _np().array_equal(_flat_bytes(value), _flat_bytes(snapshot)) else "changed"

    def restore(self, value: Any, snapshot: Any) -> Any:
        if value.shape == snapshot.shape and value.dtype == snapshot.dtype and value.flags.writeable:
            _np().copyto(value, snapshot)
            return value
        return snapshot.copy()

    def retained(self, value: Any, snapshot: Any) -> int:
        return int(snapshot.nbytes)
