"""The registry of object kinds: what nb_agent knows about a family of objects, found by
type alone, without importing the family's library and without running the object's code.

Every consumer that describes or watches a user's objects (the variables summary,
InspectVariables, the namespace changes of an ExecuteCode call, the namespace checkpoints)
asks :func:`kind_of` and uses the kind's methods. A kind never computes a lazy object,
never iterates an iterator, and never calls a user class's ``__eq__`` or ``__hash__``
(identity and exact builtin scalars only). A kind that cannot tell whether its object
changed says ``"unknown"``, never ``"same"``.

New kinds (lazy frames of Dask, Polars, Spark...) are added with :func:`register_kind`;
the first registered kind whose :meth:`ObjectKind.matches` accepts a type wins.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any, Literal

ChangeTest = Literal["same", "changed", "unknown"]
InPlace = Literal["never", "tracked", "unknown"]
"""How an object can change without being rebound: ``never`` (immutable, or not worth
watching: functions, modules), ``tracked`` (the kind has a copy or a key to tell), or
``unknown`` (it may change and nothing cheap tells)."""

EAGER_ARRAY_MODULES = frozenset({"torch", "xarray", "scipy", "jax", "tensorflow"})
"""Libraries whose objects' ``shape`` is plain numbers already computed (not Dask's)."""
SHORT_MODULES = ("numpy", "pandas", "torch", "polars", "xarray", "dask", "pyspark", "scipy", "jax", "tensorflow")
"""Libraries whose type names keep their package prefix (``pandas.DataFrame``)."""


def mro_has(cls: type, module_prefix: str, name: str) -> bool:
    """Whether ``cls`` or a base is ``name`` from a module under ``module_prefix``; by
    names only, so the library is never imported (nor its ``__instancecheck__`` run)."""
    for base in getattr(cls, "__mro__", (cls,)):
        module = getattr(base, "__module__", "") or ""
        if base.__name__ == name and (module == module_prefix or module.startswith(module_prefix + ".")):
            return True
    return False


def root_module(cls: type) -> str:
    return (getattr(cls, "__module__", "") or "").split(".")[0]


@dataclass(frozen=True, kw_only=True)
class Facts:
    """A few cheap facts about a value, taken before a call so a change can be described."""

    type_name: str
    shape: tuple[int, ...] | None = None
    length: int | None = None
    dtype: str | None = None
    memory: int | None = None


class ObjectKind:
    """The default kind: any object. Subclasses override what their family allows."""

    name = "object"
    lazy = False
    """Describing it never computes it (Dask, Spark, Polars LazyFrame, generators)."""
    in_place: InPlace = "unknown"

    # --- which objects -------------------------------------------------------------------------
    def matches(self, cls: type) -> bool:
        return True

    # --- describing ------------------------------------------------------------------------------
    def type_name(self, value: Any) -> str:
        cls = type(value)
        module = getattr(cls, "__module__", "") or ""
        if module in ("builtins", "__main__"):
            return cls.__qualname__
        short = module.split(".")[0]
        return f"{short}.{cls.__qualname__}" if short in SHORT_MODULES else cls.__qualname__

    def shape(self, value: Any) -> tuple[int, ...] | None:
        """Dimensions, when the kind knows them without computing anything."""
        if root_module(type(value)) not in EAGER_ARRAY_MODULES:
            return None
        try:
            return tuple(int(d) for d in value.shape)
        except (AttributeError, TypeError, ValueError):
            return None

    def length(self, value: Any) -> int | None:
        return None

    def dtype(self, value: Any) -> str | None:
        return None

    def columns(self, value: Any) -> list[str] | None:
        """Column names of a frame (``None`` for anything else)."""
        return None

    def column_types(self, value: Any) -> list[tuple[str, str]] | None:
        """A lazy frame's column names and types, from its metadata (``None``: none known)."""
        return None

    def plan(self, value: Any) -> str | None:
        """A lazy object's query plan or structure as text, built without running it."""
        return None

    def lazy_note(self, value: Any) -> str | None:
        """What stands for a lazy object's size (``lazy, 8 partitions``; ``None``: not lazy)."""
        return None

    def memory(self, value: Any) -> int | None:
        """Bytes the object holds (shallow: what it owns, not what it points to)."""
        try:
            return sys.getsizeof(value)
        except Exception:  # noqa: BLE001 - a broken __sizeof__ is not our problem
            return None

    def facts(self, value: Any) -> Facts:
        return Facts(
            type_name=self.type_name(value), shape=self.shape(value), length=self.length(value),
            dtype=self.dtype(value), memory=self.memory(value),
        )  # fmt: skip

    # --- watching for changes in place -----------------------------------------------------------
    def may_mutate(self, value: Any, method: str) -> bool:
        """Whether calling ``value.method(...)`` may change ``value`` in place."""
        return self.in_place != "never"

    def may_mutate_part(self, value: Any, method: str) -> bool:
        """Whether ``value[k].method(...)`` (or a method of a view of it) may change ``value``."""
        return self.in_place != "never"

    def shares_memory(self, value: Any, other: Any) -> bool:
        """Whether changing ``value`` in place may change ``other`` (a view, cheaply bounded)."""
        return False

    def content_key(self, value: Any) -> Hashable | None:
        """A cheap key that changes whenever the contents change (``None``: the kind has none)."""
        return None

    def probe(self, value: Any) -> Hashable | None:
        """A cheap key that differs after many common changes; equal probes prove nothing."""
        return None

    def digest(self, value: Any) -> Hashable | None:
        """An exact fingerprint of the contents, perhaps costly (``None``: none). Used to tell
        later whether someone changed an object after the agent's run."""
        return self.content_key(value)

    def copy_cost(self, value: Any) -> int | None:
        """Bytes a snapshot would take now (``None``: the kind cannot snapshot this object)."""
        return None

    def snapshot(self, value: Any) -> Any:
        """A copy to restore from later; may raise (the caller reports it)."""
        raise TypeError(f"{self.name} objects are not copied")

    def compare(self, value: Any, snapshot: Any) -> ChangeTest:
        """Whether ``value`` still has the contents of ``snapshot``."""
        return "unknown"

    def restore(self, value: Any, snapshot: Any) -> Any:
        """Put ``snapshot``'s contents back; returns the object to bind (``value`` itself when
        restored in place, so other references see it too). The snapshot stays intact."""
        raise TypeError(f"{self.name} objects cannot be restored")

    def retained(self, value: Any, snapshot: Any) -> int:
        """Bytes the snapshot keeps alive beyond what ``value`` shares with it."""
        return self.copy_cost(snapshot) or 0


_KINDS: list[ObjectKind] = []
_BY_TYPE: dict[type, ObjectKind] = {}
_LOCK = threading.Lock()
FALLBACK = ObjectKind()
MAX_CACHED_TYPES = 4096


def register_kind(kind: ObjectKind, *, first: bool = False) -> None:
    """Add ``kind`` to the registry (after the others, or before them with ``first``)."""
    with _LOCK:
        if first:
            _KINDS.insert(0, kind)
        else:
            _KINDS.append(kind)
        _BY_TYPE.clear()


def kind_of(value: Any) -> ObjectKind:
    """The kind of ``value`` (cached per type)."""
    cls = type(value)
    kind = _BY_TYPE.get(cls)
    if kind is not None:
        return kind
    kind = next((k for k in _KINDS if _matches(k, cls)), FALLBACK)
    with _LOCK:
        if len(_BY_TYPE) >= MAX_CACHED_TYPES:
            _BY_TYPE.clear()
        _BY_TYPE[cls] = kind
    return kind


def _matches(kind: ObjectKind, cls: type) -> bool:
    try:
        return kind.matches(cls)
    except Exception:  # noqa: BLE001 - a strange class (a broken metaclass) is a plain object
        return False


def registered_kinds() -> list[ObjectKind]:
    return list(_KINDS)
