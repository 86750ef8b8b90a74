"""``%load_ext nb_agent`` in a fresh kernel: fast, and without the heavy imports."""

from __future__ import annotations

import pytest

LOAD_BUDGET_S = 0.5


@pytest.fixture(scope="module")
def fresh_kernel(make_kernel):
    return make_kernel("fresh")


def test_load_ext_is_fast_and_imports_nothing_heavy(fresh_kernel):
    code = (
        "import sys, time\n"
        "_t = time.perf_counter()\n"
        "get_ipython().run_line_magic('load_ext', 'nb_agent')\n"
        "print(round(time.perf_counter() - _t, 3))\n"
        "print(*[m in sys.modules for m in ('anthropic', 'ipywidgets', 'markdown_it', 'nb_agent.engine', 'nb_agent.loop.query')])"
    )
    run = fresh_kernel.run(code)
    assert run.status == "ok", run.errors
    elapsed, modules = run.stdout.strip().splitlines()
    assert modules.split() == ["False"] * 5, "a heavy module was imported at load"
    assert float(elapsed) < LOAD_BUDGET_S * 4, f"%load_ext took {elapsed}s"  # generous: CI machines vary
    assert fresh_kernel.run("%agent").status == "ok"


def test_reload_keeps_one_transformer(fresh_kernel):
    fresh_kernel.run("%reload_ext nb_agent")
    run = fresh_kernel.run("print(sum(type(t).__name__ == 'AgentCellTransformer' for t in get_ipython().input_transformers_cleanup))")
    assert run.stdout.strip() == "1"
