"""What one call changed, as the model reads it: created, rebound, deleted, changed in place,
unknown; copies within the budget; a copy that fails."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from nb_agent.checkpoints.namespace import NamespaceTracker, call_lines


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def _ns(**values):
    return {"np": np, "pd": pd, **values}


class LinearRegression:
    pass


class Pipeline:
    pass


def test_created_rebound_deleted_and_changed_lines(run_call):
    sales = pd.DataFrame({"v": np.arange(1000.0)})
    sales.loc[::20, "v"] = np.nan
    ns = _ns(sales=sales, model=LinearRegression(), tmp=[1], Pipeline=Pipeline, untouched=np.zeros(5))
    record = run_call(NamespaceTracker(), ns, "sales.dropna(inplace=True)\nmodel = Pipeline()\ndel tmp\nsummary = sales.describe()")
    lines = call_lines(list(record.changes.values()))
    assert "sales: changed in place, 1,000 → 950 rows" in lines
    assert "model: rebound (LinearRegression → Pipeline)" in lines
    assert "tmp: deleted (was list)" in lines
    assert any(line.startswith("summary: created (pandas.DataFrame, 8×1") for line in lines)
    assert not any("untouched" in line or "Pipeline:" in line for line in lines)


def test_column_and_dtype_changes_are_named(run_call):
    ns = _ns(df=pd.DataFrame({"a": [1, 2], "b": [3, 4]}), s=pd.Series([1, 2]))
    record = run_call(NamespaceTracker(), ns, "df['c'] = df.a * 2\ndel df['b']\ns += 0.5")
    lines = call_lines(list(record.changes.values()))
    assert "df: changed in place, columns +c; columns −b" in lines
    assert "s: changed in place, dtype int64 → float64" in lines


def test_nothing_changed_means_no_lines(run_call):
    ns = _ns(df=pd.DataFrame({"a": [1, 2]}), arr=np.arange(10), cfg={"k": [1]})
    record = run_call(NamespaceTracker(), ns, "print(df.a.sum(), arr.mean(), cfg['k'])")
    assert record.changes == {}


def test_a_change_through_a_name_the_code_does_not_show_is_seen(run_call):
    ns = _ns(data=[1, 2, 3])
    ns["alias"] = ns["data"]
    record = run_call(NamespaceTracker(), ns, "alias.append(4)")
    assert {"data", "alias"} <= set(record.changes)
    assert all(change.restorable for change in record.changes.values())


def test_exec_of_a_file_the_code_does_not_show(run_call, tmp_path):
    script = tmp_path / "mutate.py"
    script.write_text("prices[0] = -1.0\nsettings['mode'] = 'fast'\n")
    ns = _ns(prices=np.ones(100), settings={"mode": "slow"})
    record = run_call(NamespaceTracker(), ns, f"exec(open({str(script)!r}).read())")
    assert set(record.changes) == {"prices", "settings"}
    assert all(change.restorable for change in record.changes.values())


def test_an_array_over_the_budget_is_reported_not_restorable(run_call):
    tracker = NamespaceTracker(budget=1_000_000)
    ns = _ns(big=np.zeros(500_000))
    record = run_call(tracker, ns, "big[:] = 1")
    change = record.changes["big"]
    assert change.change == "changed" and not change.restorable
    assert "over the copy budget of 976.6 KB" in change.line and "not restorable" in change.line


class Holder:
    def __init__(self, array):
        self.array = array


def test_an_array_reached_through_another_object_is_caught_by_its_probe(run_call):
    big = np.zeros(2_000_000)  # 16 MB: not copied unless the code points at it
    ns = _ns(big=big, holder=Holder(big))
    record = run_call(NamespaceTracker(), ns, "holder.array[:] = 1.0")
    change = record.changes["big"]
    assert change.change == "changed" and not change.restorable
    assert record.changes["holder"].change == "unknown"


def test_views_of_an_array_the_code_changes_are_copied_with_it(run_call):
    big = np.zeros(2_000_000)
    ns = _ns(big=big, head=big[:10])
    record = run_call(NamespaceTracker(), ns, "head[:] = 7.0")
    assert record.changes["big"].restorable and record.changes["head"].restorable


def test_an_object_whose_copy_fails_is_reported_and_the_call_goes_on(run_call):
    class Stubborn(np.ndarray):
        def copy(self, *args, **kwargs):
            raise MemoryError("cannot copy this one")

    stubborn = np.zeros(10).view(Stubborn)
    ns = _ns(stubborn=stubborn, other=[1])
    record = run_call(NamespaceTracker(), ns, "stubborn[0] = 1\nother.append(2)")
    line = record.changes["stubborn"].line
    assert "not restorable (its copy failed: MemoryError: cannot copy this one)" in line
    assert record.changes["other"].restorable


def test_user_objects_the_code_calls_may_have_changed(run_call):
    class Model:
        def fit(self):
            self.fitted = True

    ns = _ns(model=Model(), other=Model())
    record = run_call(NamespaceTracker(), ns, "model.fit()")
    assert set(record.changes) == {"model"}
    assert record.changes["model"].change == "unknown"
    line = record.changes["model"].line
    assert line.startswith("model: may have changed in place (no cheap way to tell for a ") and line.endswith("Model; not restorable)")


def test_oldest_copies_are_dropped_first_to_stay_within_the_budget(run_call):
    tracker = NamespaceTracker(budget=3_000_000)
    ns = _ns(a=np.zeros(150_000), b=np.zeros(150_000))  # 1.2 MB each
    first = run_call(tracker, ns, "a[0] = 1")
    assert first.changes["a"].restorable
    second = run_call(tracker, ns, "b[0] = 1")
    third = run_call(tracker, ns, "a[1] = 2\nb[1] = 2")
    assert third.changes["a"].restorable and third.changes["b"].restorable
    assert not first.changes["a"].restorable and "memory budget" in first.changes["a"].before.lost
    assert tracker.retained <= tracker.budget and second.retained == 0


def test_a_rebound_giant_is_let_go_when_it_does_not_fit(run_call):
    tracker = NamespaceTracker(budget=1_000_000)
    ns = _ns(frame=pd.DataFrame({"v": np.zeros(500_000)}))
    record = run_call(tracker, ns, "frame = frame[frame.v > 0]")
    change = record.changes["frame"]
    assert change.change == "rebound" and not change.restorable
    assert "keeping it would exceed the memory budget" in change.line


def test_an_object_changed_then_rebound_is_counted_once_and_let_go_over_the_budget(run_call):
    import gc
    import weakref

    tracker = NamespaceTracker(budget=2_000_000)
    ns = _ns(frame=pd.DataFrame({"v": np.zeros(500_000), "f": np.zeros(500_000, dtype="int8")}))  # 4.5 MB
    old = weakref.ref(ns["frame"])
    first = run_call(tracker, ns, "frame.loc[0, 'f'] = 1")  # copy-on-write copies the 0.5 MB column only
    assert first.changes["frame"].restorable and tracker.retained == 500_000
    second = run_call(tracker, ns, "frame = frame.iloc[:10].copy()")  # now only the records hold the 4.5 MB frame
    assert not first.changes["frame"].restorable and not second.changes["frame"].restorable
    assert tracker.retained == 0
    gc.collect()
    assert old() is None  # really let go


def test_a_cell_changed_in_a_consolidated_frame_keeps_only_what_the_frame_no_longer_holds(run_call):
    # pandas keeps the float columns of a frame built from a dict in one 2-d block; a change in
    # place under a snapshot copies the changed column out and leaves the other columns as views
    # of that block, so the snapshot keeps nothing alive that the frame does not hold anyway.
    frame = pd.DataFrame({f"v{i}": np.zeros(100_000) for i in range(10)})  # 8 MB in one block
    tracker = NamespaceTracker(budget=2_000_000)  # a quarter of the frame
    ns = _ns(frame=frame)
    record = run_call(tracker, ns, "frame.loc[0, 'v1'] = 1.0")
    assert record.changes["frame"].restorable, record.changes["frame"].line
    assert tracker.retained == 0
