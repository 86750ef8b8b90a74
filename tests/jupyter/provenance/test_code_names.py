"""Which names a piece of code sets, changes in place or deletes, read from its syntax."""

from __future__ import annotations

from nb_agent.jupyter.provenance.code_names import cell_code_names, code_names


def test_bindings_at_the_top_level_only():
    names = code_names(
        "import numpy as np, os.path\nfrom math import sqrt as root\na, (b, *c) = 1, (2, 3)\nfor i in range(3):\n    total = i\n"
        "with open('f') as handle:\n    pass\ndef f(x):\n    inner = x\n    return inner\nclass K:\n    attr = 1\n"
        "squares = [k * k for k in range(3)]\nif (n := 10) > 5:\n    big = True\ntry:\n    pass\nexcept Exception as err:\n    handled = 1"
    )
    assert names.bound == {"np", "os", "root", "a", "b", "c", "i", "total", "handle", "f", "K", "squares", "n", "big", "handled"}
    assert not names.star_import and names.parsed


def test_changes_in_place_are_not_bindings():
    names = code_names("df['x'] = 1\ncounter += 1\ndf.dropna(inplace=True)\nobj.attr = 2\ndel cache['k']\ndel gone")
    assert names.bound == set()
    assert names.changed >= {"df", "counter", "obj", "cache"}
    assert names.deleted == {"gone"}
    assert names.made == names.bound | names.changed


def test_star_imports_and_code_that_is_not_python():
    assert code_names("from pylab import *").star_import
    assert not code_names("x = = 1").parsed


def test_a_cell_with_magics_is_read_after_ipythons_transformations():
    names = cell_code_names("%matplotlib inline\n!ls\nfig_size = (4, 3)\n")
    assert names.parsed and names.bound == {"fig_size"}
