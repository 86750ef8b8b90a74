"""Kinds of Python's own objects: immutable scalars, code and modules, plain containers,
and lazy iterators (which are never iterated)."""

from __future__ import annotations

import collections
import datetime
import decimal
import fractions
import sys
import types
import uuid
from collections.abc import Hashable
from typing import Any

from nb_agent.objects.kinds import ChangeTest, ObjectKind, root_module

EXACT_SCALARS = (int, float, complex, bool, type(None), str, bytes)
"""Types whose ``==`` is Python's own (never user code): compared by value."""
IMMUTABLE = (
    *EXACT_SCALARS, range, type(Ellipsis), decimal.Decimal, fractions.Fraction,
    datetime.date, datetime.datetime, datetime.time, datetime.timedelta, uuid.UUID,
)  # fmt: skip
MAX_PLAIN_ELEMENTS = 2_000_000
"""A plain container is copied and compared only up to this many elements in all."""


class ImmutableKind(ObjectKind):
    """Numbers, strings, bytes, dates: only rebinding changes what a name holds."""

    name = "immutable"
    in_place = "never"

    def matches(self, cls: type) -> bool:
        return cls in IMMUTABLE or root_module(cls) == "numpy" and _is_numpy_scalar(cls)

    def length(self, value: Any) -> int | None:
        return len(value) if isinstance(value, (str, bytes, range)) else None


def _is_numpy_scalar(cls: type) -> bool:
    return any(base.__name__ == "generic" and base.__module__ == "numpy" for base in cls.__mro__)


class CodeKind(ObjectKind):
    """Functions, classes, modules: described by name; not watched for changes in place."""

    name = "code"
    in_place = "never"

    def matches(self, cls: type) -> bool:
        return issubclass(cls, (types.FunctionType, types.BuiltinFunctionType, types.MethodType, types.ModuleType, type))


_LAZY_ROOTS = frozenset({"dask", "pyspark", "ray", "vaex"})
_LAZY_TYPES = (types.GeneratorType, types.CoroutineType, types.AsyncGeneratorType)


class LazyKind(ObjectKind):
    """Generators, iterators and lazy collections: never iterated, counted or computed."""

    name = "lazy"
    lazy = True

    def matches(self, cls: type) -> bool:
        if issubclass(cls, _LAZY_TYPES) or root_module(cls) in _LAZY_ROOTS:
            return True
        if root_module(cls) == "polars" and cls.__name__ == "LazyFrame":
            return True
        module = getattr(cls, "__module__", "")
        return module in ("builtins", "itertools") and cls.__name__.endswith(("iterator", "_iterator")) or module == "itertools"

    def shape(self, value: Any) -> tuple[int, ...] | None:
        return None

    def memory(self, value: Any) -> int | None:
        return None


_MUTATORS: dict[type, frozenset[str]] = {
    list: frozenset({"append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse"}),
    dict: frozenset({"clear", "pop", "popitem", "setdefault", "update"}),
    set: frozenset({"add", "discard", "remove", "pop", "clear", "update", "intersection_update", "difference_update", "symmetric_difference_update"}),
    bytearray: frozenset({"append", "extend", "insert", "pop", "remove", "clear", "reverse"}),
    collections.deque: frozenset({"append", "appendleft", "extend", "extendleft", "pop", "popleft", "remove", "rotate", "clear", "insert", "reverse"}),
}
_MUTATORS[collections.OrderedDict] = _MUTATORS[dict] | {"move_to_end"}
_MUTATORS[collections.defaultdict] = _MUTATORS[dict]
_MUTATORS[collections.Counter] = _MUTATORS[dict] | {"subtract"}
CONTAINERS = (*_MUTATORS, tuple, frozenset)


class _TooLarge(Exception):
    pass


class _Budget:
    def __init__(self) -> None:
        self.elements = 0
        self.bytes = 0

    def take(self, container: Any) -> None:
        self.elements += len(container)
        self.bytes += sys.getsizeof(container)
        if self.elements > MAX_PLAIN_ELEMENTS:
            raise _TooLarge


def plain_copy(value: Any, budget: _Budget | None = None) -> Any:
    """A copy of nested plain containers (lists, dicts, sets, tuples, deques...); any other
    object inside is shared, not copied (no user ``__copy__`` runs)."""
    budget = budget or _Budget()
    cls = type(value)
    if cls not in CONTAINERS:
        return value
    budget.take(value)
    if cls is list:
        return [plain_copy(v, budget) for v in value]
    if cls is tuple:
        items = [plain_copy(v, budget) for v in value]
        return value if all(a is b for a, b in zip(items, value)) else tuple(items)
    if cls in (set, frozenset, bytearray):
        return cls(value)  # members are hashable, hence (for plain types) immutable
    if cls is collections.deque:
        return collections.deque((plain_copy(v, budget) for v in value), maxlen=value.maxlen)
    if cls is collections.defaultdict:
        copied: Any = collections.defaultdict(value.default_factory)
    else:
        copied = cls()
    for key, item in value.items():
        copied[key] = plain_copy(item, budget)
    return copied


def _same_leaf(a: Any, b: Any) -> bool:
    return a is b or (type(a) is type(b) and type(a) in EXACT_SCALARS and a == b)


def _member_key(member: Any) -> Hashable:
    """How a set member is compared: exact scalars by value, anything else by identity."""
    return (type(member), member) if type(member) in EXACT_SCALARS else ("id", id(member))


def plain_same(a: Any, b: Any, budget: _Budget | None = None) -> bool:
    """Whether two plain structures hold the same things: containers compared member by
    member, anything else by identity (or exact builtin scalars by value)."""
    budget = budget or _Budget()
    cls = type(a)
    if cls is not type(b) or cls not in CONTAINERS:
        return _same_leaf(a, b)
    budget.take(a)
    if len(a) != len(b):
        return False
    if cls in (set, frozenset):
        return set(map(_member_key, a)) == set(map(_member_key, b))
    if cls is bytearray:
        return a == b
    if isinstance(a, dict):
        return all(_same_leaf(ka, kb) and plain_same(a[ka], b[kb], budget) for ka, kb in zip(a, b))
    return all(plain_same(x, y, budget) for x, y in zip(a, b))


def plain_fingerprint(value: Any, budget: _Budget | None = None) -> Hashable:
    """An exact fingerprint of a plain structure: the same ⇔ :func:`plain_same`."""
    budget = budget or _Budget()
    cls = type(value)
    if cls not in CONTAINERS:
        return (cls.__name__, value) if cls in EXACT_SCALARS else ("id", id(value))
    budget.take(value)
    if cls is bytearray:
        return ("bytearray", bytes(value))
    if cls in (set, frozenset):
        return (cls.__name__, frozenset(plain_fingerprint(v, budget) for v in value))
    if isinstance(value, dict):
        return (cls.__name__, tuple((plain_fingerprint(k, budget), plain_fingerprint(v, budget)) for k, v in value.items()))
    return (cls.__name__, tuple(plain_fingerprint(v, budget) for v in value))


class ContainerKind(ObjectKind):
    """Lists, dicts, sets, tuples, deques and bytearrays of Python's own types (not user
    subclasses, whose methods could do anything): copied with their nested containers."""

    name = "container"
    in_place = "tracked"

    def matches(self, cls: type) -> bool:
        return cls in CONTAINERS

    def length(self, value: Any) -> int | None:
        return len(value)

    def may_mutate(self, value: Any, method: str) -> bool:
        return method in _MUTATORS.get(type(value), frozenset())

    def probe(self, value: Any) -> Hashable | None:
        return (len(value), id(value[0]) if type(value) is list and value else None)

    def digest(self, value: Any) -> Hashable | None:
        try:
            return plain_fingerprint(value)
        except (_TooLarge, RecursionError):
            return None

    def copy_cost(self, value: Any) -> int | None:
        return sys.getsizeof(value) + 8 * len(value)

    def snapshot(self, value: Any) -> Any:
        try:
            return plain_copy(value)
        except _TooLarge:
            raise ValueError(f"more than {MAX_PLAIN_ELEMENTS:,} nested elements") from None

    def compare(self, value: Any, snapshot: Any) -> ChangeTest:
        try:
            return "same" if plain_same(value, snapshot) else "changed"
        except (_TooLarge, RecursionError):
            return "unknown"

    def restore(self, value: Any, snapshot: Any) -> Any:
        fresh = plain_copy(snapshot)  # the snapshot stays intact for a later rewind
        cls = type(value)
        if cls in (tuple, frozenset):
            return fresh
        if cls in (list, bytearray):
            value[:] = fresh
        elif cls is collections.deque:
            value.clear()
            value.extend(fresh)
        else:  # dicts and sets
            value.clear()
            value.update(fresh)
        return value

    def retained(self, value: Any, snapshot: Any) -> int:
        return sys.getsizeof(snapshot) + 8 * len(snapshot)


BUILTIN_KINDS: tuple[ObjectKind, ...] = (ImmutableKind(), ContainerKind(), CodeKind(), LazyKind())
