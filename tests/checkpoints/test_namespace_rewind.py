"""Undoing calls: bindings and in-place changes put back, the user's later changes kept,
and a redo."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from nb_agent.checkpoints.namespace import NamespaceTracker, apply_plan, apply_redo, plan_rewind


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def _agent_run(tracker, ns, run, codes, run_call, items):
    tracker.start_run(run, items(ns))
    mark = tracker.next_number
    for code in codes:
        run_call(tracker, ns, code)
    tracker.end_run(items(ns))
    return mark


def test_a_run_is_undone_names_and_contents(run_call, items):
    sales = pd.DataFrame({"v": [1.0, None, 3.0]})
    prices = np.arange(5.0)
    cfg = {"mode": "slow", "cols": ["a"]}
    ns = {"sales": sales, "prices": prices, "cfg": cfg, "tmp": 1, "model": "linear"}
    others = {"sales": sales, "prices": prices, "cfg": cfg}  # references the namespace does not own
    tracker = NamespaceTracker()
    mark = _agent_run(tracker, ns, 1, ["sales.dropna(inplace=True)\nprices *= 2", "cfg['cols'].append('b')\ndel tmp\nmodel = 'tree'\nnew = 5"], run_call, items)
    plan = plan_rewind(tracker, since=mark, run=1, now=dict(items(ns)))
    assert set(plan.restore) == {"sales", "prices", "cfg", "tmp", "model", "new"} and not plan.kept
    outcome = apply_plan(tracker, plan, ns)
    assert ns["sales"] is sales and len(others["sales"]) == 3
    assert ns["prices"] is prices and prices.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    assert ns["cfg"] is cfg and cfg == {"mode": "slow", "cols": ["a"]}
    assert ns["tmp"] == 1 and ns["model"] == "linear" and "new" not in ns
    assert len(outcome.restored) == 6 and not outcome.kept and not outcome.not_restored
    redone = apply_redo(tracker, outcome.redo, outcome.left, plan.records, ns)
    assert len(sales) == 2 and prices.tolist()[1] == 2.0 and cfg["cols"] == ["a", "b"] and ns["new"] == 5 and "tmp" not in ns
    assert not redone.kept and not redone.not_restored


def test_what_the_user_changed_after_the_run_is_kept(run_call, items):
    ns = {"sales": pd.DataFrame({"v": [1.0, 2.0]}), "notes": ["a"], "x": 1}
    tracker = NamespaceTracker()
    mark = _agent_run(tracker, ns, 1, ["sales['w'] = 1\nnotes.append('b')\nx = 2"], run_call, items)
    ns["sales"].loc[0, "v"] = 100.0  # the user works on, after the run
    ns["notes"] = ["mine"]
    plan = plan_rewind(tracker, since=mark, run=1, now=dict(items(ns)))
    assert plan.kept == {"sales": "you changed it after the run", "notes": "you changed it after the run"}
    apply_plan(tracker, plan, ns)
    assert ns["sales"].loc[0, "v"] == 100.0 and "w" in ns["sales"] and ns["notes"] == ["mine"] and ns["x"] == 1


def test_user_changes_between_runs_count_only_after_the_checkpoint(run_call, items):
    ns = {"data": [1]}
    tracker = NamespaceTracker()
    first = _agent_run(tracker, ns, 1, ["data.append(2)"], run_call, items)
    ns["data"].append(99)  # the user, between the runs
    second = _agent_run(tracker, ns, 2, ["data.append(3)"], run_call, items)
    assert plan_rewind(tracker, since=first, run=1, now=dict(items(ns))).kept == {"data": "you changed it after the run"}
    plan = plan_rewind(tracker, since=second, run=2, now=dict(items(ns)))
    assert set(plan.restore) == {"data"}
    apply_plan(tracker, plan, ns)
    assert ns["data"] == [1, 2, 99]


def test_a_redo_leaves_what_the_user_changed_after_the_rewind(run_call, items):
    ns = {"a": [1], "b": [1]}
    tracker = NamespaceTracker()
    mark = _agent_run(tracker, ns, 1, ["a.append(2)\nb.append(2)"], run_call, items)
    plan = plan_rewind(tracker, since=mark, run=1, now=dict(items(ns)))
    outcome = apply_plan(tracker, plan, ns)
    ns["a"].append("mine")
    redone = apply_redo(tracker, outcome.redo, outcome.left, plan.records, ns)
    assert redone.kept == ["a — you changed it after the rewind"]
    assert ns["a"] == [1, "mine"] and ns["b"] == [1, 2]


def test_what_could_not_be_copied_is_said(run_call, items):
    ns = {"big": np.zeros(500_000)}
    tracker = NamespaceTracker(budget=1_000_000)
    mark = _agent_run(tracker, ns, 1, ["big[:] = 1"], run_call, items)
    plan = plan_rewind(tracker, since=mark, run=1, now=dict(items(ns)))
    assert "over the copy budget" in plan.lost["big"]
    outcome = apply_plan(tracker, plan, ns)
    assert outcome.not_restored and ns["big"][0] == 1


class Model:
    def fit(self):
        self.fitted = True


def test_an_object_of_unknown_kind_rebound_later_gets_its_old_binding_back(run_call, items):
    model = Model()
    ns = {"model": model, "_Model": Model}
    tracker = NamespaceTracker()
    mark = _agent_run(tracker, ns, 1, ["model.fit()", "model = _Model()"], run_call, items)
    plan = plan_rewind(tracker, since=mark, run=1, now=dict(items(ns)))
    assert "cannot be told" in plan.notes["model"]
    apply_plan(tracker, plan, ns)
    assert ns["model"] is model
