"""Names a notebook reads before any cell above binds them (read, never run)."""

from __future__ import annotations

from nb_agent.jupyter.reproduce.order import names_used_early


def early(*sources: str) -> list[tuple[str, int, object]]:
    cells = [(index, f"c{index}", source) for index, source in enumerate(sources, start=1)]
    return [(use.name, use.position, use.defined_at) for use in names_used_early(cells)]


def test_a_name_a_cell_below_defines_and_one_no_cell_defines():
    assert early("import pandas as pd", "clean = raw.dropna()", "raw = pd.read_csv('x.csv')", "total = clean.sum() + ghost") == [
        ("raw", 2, (3, "c3")),
        ("ghost", 4, None),
    ]


def test_order_inside_a_cell_counts():
    assert early("x = y\ny = 1") == [("y", 1, (1, "c1"))]
    assert early("counter += 1") == [("counter", 1, None)]


def test_bodies_run_later_and_comprehensions_have_their_own_names():
    assert early(
        "def f():\n    return later_global\n",
        "squares = [k * k for k in range(3) if k]\ng = lambda: undefined_until_called",
        "later_global = 1\nf()",
    ) == []


def test_builtins_ipython_names_loops_and_handlers_are_known():
    assert early(
        "print(len([1]))\ndisplay(1)\nget_ipython()\nfor i in range(2):\n    print(i)\n"
        "with open('f') as handle:\n    handle.read()\ntry:\n    pass\nexcept ValueError as err:\n    print(err)"
    ) == []


def test_a_star_import_makes_every_name_possible():
    assert early("from pylab import *", "plot(x)") == []


def test_magics_are_read_after_ipythons_transformations():
    assert early("%matplotlib inline\nvalue = 1", "!echo hi\nprint(value, missing)") == [("missing", 2, None)]


def test_a_timed_cells_body_is_its_code():
    assert early("%%time\nframe = load()\n", "frame.head()") == [("load", 1, None)]
    assert early("%%timeit -n 1\nvalue = 1", "print(value)") == []


def test_code_that_binds_names_it_does_not_show_makes_every_name_possible():
    assert early("%run setup.py", "print(config)") == []
    assert early("%store -r config", "print(config)") == []
    assert early("globals()['config'] = 1", "print(config)") == []
    assert early("exec('config = 1')", "print(config)") == []
