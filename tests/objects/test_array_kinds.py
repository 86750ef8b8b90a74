"""NumPy and pandas kinds: snapshots, the change test and restoring in place, with real
arrays and frames (pandas 3: copy-on-write)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from nb_agent.objects import describe_one_line, kind_of


@pytest.fixture(autouse=True)
def _quiet_inplace_deprecations():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def _frame() -> pd.DataFrame:
    return pd.DataFrame(
        {"v": np.arange(6.0), "n": np.arange(6), "s": list("abcdef"), "i": pd.array([1, None, 3, 4, 5, 6], dtype="Int64"),
         "c": pd.Categorical(list("aabbaa"))}
    )  # fmt: skip


MUTATIONS = {
    "dropna": lambda df: df.dropna(inplace=True),
    "loc": lambda df: df.__setitem__("v", df["v"]) or df.loc.__setitem__((0, "v"), 99.0),
    "iadd": lambda df: df.__setitem__("n", df["n"] + 10),
    "iloc string": lambda df: df.iloc.__setitem__((1, 2), "zz"),
    "masked": lambda df: df.loc.__setitem__((2, "i"), 7),
    "categorical": lambda df: df.loc.__setitem__((0, "c"), "b"),
    "new column": lambda df: df.__setitem__("w", 1),
    "drop rows": lambda df: df.drop(index=[0, 1], inplace=True),
    "rename index": lambda df: df.rename(index={0: 100}, inplace=True),
    "index name": lambda df: setattr(df.index, "name", "row"),
    "columns": lambda df: setattr(df, "columns", list("VNSIC")),
    "sort": lambda df: df.sort_values("v", ascending=False, inplace=True),
}


@pytest.mark.parametrize("mutation", list(MUTATIONS))
def test_a_frame_changed_in_place_is_seen_and_restored(mutation):
    frame = _frame()
    kind = kind_of(frame)
    original = frame.copy(deep=True)
    snapshot = kind.snapshot(frame)
    assert kind.compare(frame, snapshot) == "same"
    alias = {"frame": frame}
    MUTATIONS[mutation](frame)
    assert kind.compare(frame, snapshot) == "changed"
    assert kind.restore(frame, snapshot) is frame
    pd.testing.assert_frame_equal(alias["frame"], original)
    assert kind.compare(frame, snapshot) == "same"


def test_a_frame_read_but_not_changed_stays_the_same():
    frame = _frame()
    kind = kind_of(frame)
    snapshot = kind.snapshot(frame)
    frame.describe(), frame.head(), frame.groupby("s").v.sum(), frame["v"].to_numpy()
    assert kind.compare(frame, snapshot) == "same"


def test_series_name_and_values():
    series = pd.Series([1.0, 2.0], name="a")
    kind = kind_of(series)
    snapshot = kind.snapshot(series)
    series.name = "b"
    assert kind.compare(series, snapshot) == "changed"
    kind.restore(series, snapshot)
    series.iloc[0] = 5.0
    assert kind.compare(series, snapshot) == "changed"
    kind.restore(series, snapshot)
    assert series.tolist() == [1.0, 2.0] and series.name == "a"


def test_a_later_change_shows_in_the_pinned_digest():
    frame = _frame()
    kind = kind_of(frame)
    proof = kind.digest(frame)
    frame.loc[0, "v"] = -1.0  # the pinned shallow copy makes pandas move the data
    assert kind.digest(frame) != proof


def test_retained_bytes_count_only_blocks_the_frame_no_longer_shares():
    frame = pd.DataFrame({"a": np.zeros(100_000), "b": np.zeros(100_000, dtype=np.int32)})
    kind = kind_of(frame)
    snapshot = kind.snapshot(frame)
    assert kind.retained(frame, snapshot) == 0
    frame.loc[0, "a"] = 1.0
    assert kind.retained(frame, snapshot) == 800_000


def test_frame_description():
    assert describe_one_line("df", _frame()) == "df: pandas.DataFrame, 6×5, columns v, n, s, i, c"


@pytest.mark.parametrize("dtype", ["float64", "int32", "complex128", [("a", "i4"), ("b", "f8")]])
def test_an_array_changed_in_place_is_seen_and_restored(dtype):
    array = np.zeros((4, 5), dtype=dtype)
    kind = kind_of(array)
    view = array[1:3]
    snapshot = kind.snapshot(array)
    assert kind.compare(array, snapshot) == "same"
    view[0] = np.ones(1, dtype=dtype)[0]
    assert kind.compare(array, snapshot) == "changed"
    assert kind.restore(array, snapshot) is array
    assert kind.compare(array, snapshot) == "same"
    assert view.tobytes() == bytes(view.nbytes)  # restored in place: the old view sees it


def test_nan_arrays_compare_by_bytes():
    array = np.array([np.nan, 1.0])
    kind = kind_of(array)
    assert kind.compare(array, kind.snapshot(array)) == "same"


def test_a_resized_array_is_rebound_on_restore():
    array = np.arange(4)
    kind = kind_of(array)
    snapshot = kind.snapshot(array)
    array.resize(8, refcheck=False)
    assert kind.compare(array, snapshot) == "changed"
    restored = kind.restore(array, snapshot)
    assert restored.tolist() == [0, 1, 2, 3]


def test_object_arrays_compare_by_identity():
    class Loud:
        def __eq__(self, other):
            raise AssertionError("__eq__ called")

    array = np.array([Loud(), Loud()], dtype=object)
    kind = kind_of(array)
    snapshot = kind.snapshot(array)
    assert kind.compare(array, snapshot) == "same"
    array[0] = Loud()
    assert kind.compare(array, snapshot) == "changed"


def test_the_probe_shows_a_change_without_a_copy():
    array = np.zeros(1_000_000)
    kind = kind_of(array)
    before = kind.probe(array)
    array[:] = 1.0
    assert kind.probe(array) != before


def test_array_digest_is_exact():
    array = np.zeros(1000)
    kind = kind_of(array)
    before = kind.digest(array)
    array[777] = 1e-300
    assert kind.digest(array) != before
