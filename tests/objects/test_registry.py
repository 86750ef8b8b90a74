"""The object-kind registry: found by type without importing libraries, lazy objects never
computed, user ``__eq__`` / ``__hash__`` never called, new kinds can be added."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from nb_agent.objects import ObjectKind, describe_one_line, kind_of, memory, register_kind, shape_text
from nb_agent.objects.kinds import _BY_TYPE, _KINDS


def test_importing_the_registry_loads_no_data_library():
    script = (
        "import sys, json, nb_agent.objects as o\n"
        "o.describe_one_line('x', [1, 2])\n"
        "print(json.dumps([m for m in ('pandas', 'numpy', 'polars', 'dask', 'pyspark') if m in sys.modules]))"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == []


class Exploding:
    """Any use beyond identity raises: equality, hashing, length, iteration, computing."""

    def __eq__(self, other):
        raise AssertionError("__eq__ called")

    def __hash__(self):
        raise AssertionError("__hash__ called")

    def __len__(self):
        raise AssertionError("__len__ called")

    def __iter__(self):
        raise AssertionError("__iter__ called")

    def compute(self):
        raise AssertionError("computed")

    @property
    def shape(self):
        raise AssertionError("shape computed")


def _lazy_type(module: str, name: str) -> type:
    return type(name, (Exploding,), {"__module__": module})


@pytest.mark.parametrize(
    "module,name",
    [("dask.dataframe.core", "DataFrame"), ("dask.bag.core", "Bag"), ("polars.lazyframe.frame", "LazyFrame"), ("pyspark.sql.dataframe", "DataFrame")],
)
def test_lazy_collections_are_described_without_computing(module, name):
    value = _lazy_type(module, name)()
    kind = kind_of(value)
    assert kind.lazy and kind.in_place == "unknown"
    assert describe_one_line("big", value).split(", ")[0] == f"big: {module.split('.')[0]}.{name}"  # and nothing exploded
    assert kind.probe(value) is None and kind.content_key(value) is None and kind.copy_cost(value) is None
    assert kind.facts(value).shape is None


def test_a_generator_is_not_advanced():
    consumed = []

    def numbers():
        for n in range(3):
            consumed.append(n)
            yield n

    gen = numbers()
    kind = kind_of(gen)
    assert kind.lazy
    describe_one_line("gen", gen), kind.facts(gen), kind.probe(gen), kind.digest(gen), memory(gen)
    assert consumed == [] and next(gen) == 0


def test_user_objects_inside_containers_are_compared_by_identity():
    inner = Exploding.__new__(Exploding)
    kind = kind_of([])
    for value in ([inner, 1, "a"], {"k": inner, "n": [inner]}, (inner, [1]), {1, 2, "x"}):
        snapshot = kind.snapshot(value)
        assert kind.compare(value, snapshot) == "same"
        assert kind.digest(value) == kind.digest(snapshot)
        kind.restore(value, snapshot)


def test_nested_changes_in_plain_containers_are_seen_and_restored_in_place():
    config = {"columns": ["a", "b"], "rate": 0.5}
    alias = config["columns"]
    kind = kind_of(config)
    snapshot = kind.snapshot(config)
    config["columns"].append("c")
    config["rate"] = 0.75
    assert kind.compare(config, snapshot) == "changed"
    restored = kind.restore(config, snapshot)
    assert restored is config and config == {"columns": ["a", "b"], "rate": 0.5}
    assert alias == ["a", "b", "c"]  # the old inner list is not the restored one: the dict's own contents are back
    config["columns"].append("d")
    assert snapshot["columns"] == ["a", "b"]  # restoring again still starts from the checkpoint


def test_a_value_equal_replacement_is_not_a_change_but_another_object_is():
    kind = kind_of([])
    value = [10**30, "text", 1.5]
    snapshot = kind.snapshot(value)
    value[0] = 10**30 + 0  # a new int object, the same value
    assert kind.compare(value, snapshot) == "same"
    value[2] = Exploding.__new__(Exploding)
    assert kind.compare(value, snapshot) == "changed"


def test_immutables_code_and_modules_never_change_in_place():
    import math

    for value in (1, 2.5, "s", b"b", None, (1, 2), range(3), len, math, Exploding):
        kind = kind_of(value)
        if kind.name == "container":  # a tuple: its members may be containers
            continue
        assert kind.in_place == "never", value


def test_shape_text_and_memory_of_builtins():
    assert shape_text([1, 2, 3]) == "len 3" and shape_text("abcd") == "len 4" and shape_text(5) == ""
    assert memory([1]) == sys.getsizeof([1])


def test_a_registered_kind_takes_precedence_and_the_cache_follows():
    class Model:
        pass

    class ModelKind(ObjectKind):
        name = "model"

        def matches(self, cls: type) -> bool:
            return cls is Model

        def type_name(self, value):
            return "my.Model"

    before = kind_of(Model())
    assert before.name == "object"
    register_kind(ModelKind(), first=True)
    try:
        assert kind_of(Model()).name == "model"
        assert describe_one_line("m", Model()) == "m: my.Model"
    finally:
        _KINDS[:] = [k for k in _KINDS if k.name != "model"]
        _BY_TYPE.clear()


def test_a_class_whose_mro_cannot_be_read_is_a_plain_object():
    class BrokenMeta(type):
        @property
        def __mro__(cls):
            raise RuntimeError("no mro")

    class Odd(metaclass=BrokenMeta):
        pass

    assert kind_of(Odd()).name in ("object",)
