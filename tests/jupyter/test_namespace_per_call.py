"""Each ExecuteCode call's tool_result says what it changed in the user's variables, in a
real kernel with real pandas and numpy."""

from __future__ import annotations

from nb_agent.testing import Reply, text, tool_use


def _result_of_call(kernel, requests_since, helpers, code: str) -> str:
    kernel.server.script.add(
        Reply(content=[tool_use("ExecuteCode", {"code": code})]),
        Reply(content=[text("done")]),
    )
    run = kernel.run("%%agent --permission-mode bypassPermissions\nwork on my data")
    assert run.status == "ok", run.errors
    return helpers.last_user_text(requests_since()[-1])


def test_in_place_rebound_deleted_and_created(kernel, requests_since, helpers):
    setup = kernel.run(
        "import warnings, numpy as np, pandas as pd\nwarnings.simplefilter('ignore')\n"
        "sales = pd.DataFrame({'v': np.arange(1000.0)})\nsales.loc[::20, 'v'] = np.nan\n"
        "class LinearRegression: pass\nclass Pipeline: pass\nmodel = LinearRegression()\ntmp = [1]\nuntouched = np.zeros(3)"
    )
    assert setup.status == "ok", setup.errors
    result = _result_of_call(kernel, requests_since, helpers, "sales.dropna(inplace=True)\nmodel = Pipeline()\ndel tmp\nreport = sales.describe()")
    section = result[result.index("[variables changed]") :]
    assert "sales: changed in place, 1,000 → 950 rows" in section
    assert "model: rebound (LinearRegression → Pipeline)" in section
    assert "tmp: deleted (was list)" in section
    assert "report: created (pandas.DataFrame, 8×1, columns v)" in section
    assert "untouched" not in section


def test_a_change_made_by_a_file_the_code_executes(kernel, requests_since, helpers):
    (kernel.cwd / "mutate_prices.py").write_text("prices *= 2\nsettings['mode'] = 'fast'\n")
    kernel.run("import numpy as np\nprices = np.ones(100)\nsettings = {'mode': 'slow'}")
    result = _result_of_call(kernel, requests_since, helpers, "exec(open('mutate_prices.py').read())")
    assert "prices: changed in place (values)" in result
    assert "settings: changed in place (values)" in result
    assert "prices: changed in place (values) — not" not in result


def test_an_object_whose_copy_fails(kernel, requests_since, helpers):
    kernel.run(
        "import numpy as np\nclass Stubborn(np.ndarray):\n    def copy(self, *a, **k):\n        raise MemoryError('no copy today')\n"
        "stubborn = np.zeros(4).view(Stubborn)"
    )
    result = _result_of_call(kernel, requests_since, helpers, "stubborn[0] = 1\nprint('ran')")
    assert "[stdout]\nran" in result
    assert "stubborn: changed in place (values) — not restorable (its copy failed: MemoryError: no copy today)" in result


def test_a_call_that_changes_nothing_says_nothing(kernel, requests_since, helpers):
    kernel.run("import pandas as pd\nquiet = pd.DataFrame({'a': [1, 2]})")
    result = _result_of_call(kernel, requests_since, helpers, "quiet.a.sum()")
    assert "[variables changed]" not in result
