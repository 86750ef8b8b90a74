"""The syntax scan names what a piece of code may change in place, and says when it cannot see."""

from __future__ import annotations

import ast

import numpy as np
import pandas as pd
import pytest

from nb_agent.checkpoints.namespace import scan_code


def _may_change(code: str, **namespace):
    return scan_code(ast.parse(code)).may_change(namespace)


@pytest.mark.parametrize(
    "code,expected",
    [
        ("df.loc[0, 'v'] = 1", {"df"}),
        ("df['w'] = df.v * 2", {"df"}),
        ("model.coef_ = None", {"model"}),
        ("arr += 1", {"arr"}),
        ("del cfg['k']", {"cfg"}),
        ("df.dropna(inplace=True)", {"df"}),
        ("np.add(a, b, out=c)", {"c"}),
        ("np.random.shuffle(arr)", {"arr"}),
        ("arr.reshape(-1)[0] = 5", {"arr"}),
        ("v = arr[:10]\nv[:] = 0", {"v", "arr"}),
        ("setattr(model, 'x', 1)", {"model"}),
        ("x, y[0] = 1, 2", {"y"}),
        ("total = arr.sum() + len(items)", set()),
        ("items.append(3)", {"items"}),
        ("items.index(3)\ncfg.get('k')", set()),
        ("cfg['k'].append(1)", {"cfg"}),
        ("arr.T.sort()", {"arr"}),
        ("arr.mean().round()", set()),
    ],
)
def test_what_the_code_may_change(code, expected):
    namespace = {"df": pd.DataFrame({"v": [1]}), "arr": np.zeros(3), "items": [1, 2], "cfg": {"k": []}, "model": object(), "a": 1, "b": 2, "c": np.zeros(1), "y": [0]}
    names, opaque = _may_change(code, **namespace)
    assert opaque is None
    assert names & set(namespace) == expected & set(namespace)


@pytest.mark.parametrize(
    "code",
    ["exec(open('x.py').read())", "eval('1')", "globals()['x'] = 1", "get_ipython().run_line_magic('run', 'x.py')", "import __main__", "from __main__ import x"],
)
def test_code_that_cannot_be_read_is_opaque(code):
    _, opaque = _may_change(code)
    assert opaque


def test_a_user_function_may_change_the_globals_it_reads_and_its_arguments():
    # frame and settings are globals the scan finds in the namespace, not in this module
    def clean():
        frame.dropna()  # noqa: F821
        settings.update(done=True)  # noqa: F821

    def ruin():
        exec("1")

    namespace = {"clean": clean, "frame": pd.DataFrame(), "settings": {}, "other": [1], "data": [2], "ruin": ruin}
    names, opaque = scan_code(ast.parse("clean(data)")).may_change(namespace)
    assert {"frame", "settings", "data"} <= names and "other" not in names and opaque is None
    _, opaque = scan_code(ast.parse("ruin()")).may_change(namespace)
    assert opaque and "ruin()" in opaque
