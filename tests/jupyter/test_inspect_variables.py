"""InspectVariables and the variables summary, over a namespace (no kernel)."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from nb_agent.errors import ToolError
from nb_agent.jupyter.tools import InspectVariables, KernelBridge, variables_summary
from nb_agent.testing.harness import tool_context


def _shell(**user):
    hidden = {"In": [], "Out": {}, "exit": object(), "get_ipython": object()}
    namespace = {**hidden, "_": None, "__builtins__": {}, "_i1": "x", **user}
    return SimpleNamespace(user_ns=namespace, user_ns_hidden=dict(hidden))


def _call(shell, **input):
    tool = InspectVariables(KernelBridge(shell=shell))
    import asyncio

    parsed = tool.parse_input(input)
    return asyncio.run(tool.call(parsed, tool_context([tool]), lambda _: None)).data


def test_lists_user_variables_only():
    shell = _shell(df=pd.DataFrame({"a": range(5), "b": list("abcde")}), arr=np.zeros((3, 4)), n=3, name="x", math=math, _hidden=1)
    table = _call(shell)
    lines = table.splitlines()
    assert lines[0].split() == ["name", "type", "shape/len", "memory"]
    names = [line.split()[0] for line in lines[1:]]
    assert names == ["df", "arr", "n", "name"]  # no modules, IPython internals or underscored names
    assert "pandas.DataFrame" in table and "5×2" in table and "3×4" in table


def test_describes_a_dataframe():
    frame = pd.DataFrame({"price": [1.0, 2.0, None], "city": ["a", "b", "c"]})
    text = _call(_shell(frame=frame), name="frame")
    assert "price: float64" in text and "city:" in text
    assert "head:" in text and "describe:" in text and "missing values: price=1" in text


def test_describes_an_array_and_other_objects():
    text = _call(_shell(arr=np.arange(12.0).reshape(3, 4)), name="arr")
    assert "dtype float64, shape (3, 4)" in text and "min 0, max 11, mean 5.5" in text
    text = _call(_shell(cfg={"a": 1, "b": [1, 2]}), name="cfg")
    assert "dict, len 2" in text and "keys: 'a', 'b'" in text


def test_unknown_name_is_an_error_listing_what_exists():
    with pytest.raises(ToolError, match="No variable named 'nope'.*known_one"):
        _call(_shell(known_one=1), name="nope")


def test_a_hostile_object_does_not_break_the_tool():
    class Hostile:
        def __repr__(self):
            raise RuntimeError("boom")

        def __len__(self):
            raise RuntimeError("boom")

    assert "could not describe it" in _call(_shell(h=Hostile()), name="h")
    assert "Hostile" in _call(_shell(h=Hostile()))


def test_summary_is_bounded():
    shell = _shell(**{f"variable_{i}": list(range(i)) for i in range(500)})
    summary = variables_summary(shell)
    assert summary is not None and len(summary) <= 2000
    assert "variable_0: list, len 0" in summary and "more" in summary.splitlines()[-1]
    assert variables_summary(_shell()) is None


def test_tool_flags():
    tool = InspectVariables(KernelBridge(shell=_shell()))
    parsed = tool.parse_input({})
    assert tool.is_read_only(parsed) and tool.is_concurrency_safe(parsed)


def test_summary_names_a_dataframes_columns():
    frame = pd.DataFrame({"month": ["2024-01"], "revenue": [1.0], "ad_spend": [2.0]})
    summary = variables_summary(_shell(sales=frame))
    assert "sales: pandas.DataFrame, 1×3, columns month, revenue, ad_spend" in summary


def test_summary_bounds_a_wide_frames_columns():
    wide = pd.DataFrame({f"feature_with_a_long_name_{i:04d}": [0] for i in range(2_000)})
    line = variables_summary(_shell(wide=wide)).splitlines()[1]
    assert "feature_with_a_long_name_0000" in line and "feature_with_a_long_name_1999" not in line
    shown = line.split("columns ", 1)[1]
    assert shown.endswith(" more") and int(shown.rsplit("+", 1)[1].split()[0]) >= 2_000 - 12
    assert len(line) < 300


def test_describe_says_when_it_used_a_sample():
    small = _call(_shell(frame=pd.DataFrame({"x": range(10)})), name="frame")
    assert "\ndescribe:\n" in small and "sample" not in small
    big = pd.DataFrame({"x": np.arange(1_000_001, dtype=np.int32)})
    text = _call(_shell(big=big), name="big")
    assert "describe (computed on a random sample of 100,000 of 1,000,001 rows):" in text
