"""``%load_ext nb_agent`` in a fresh kernel: without the heavy imports (the load time is
printed by bench/load_ext_time.py, not asserted: these machines are shared and noisy)."""

from __future__ import annotations

import pytest

@pytest.fixture(scope="module")
def fresh_kernel(make_kernel):
    return make_kernel("fresh")


def test_load_ext_imports_nothing_heavy(fresh_kernel):
    code = (
        "import sys\n"
        "get_ipython().run_line_magic('load_ext', 'nb_agent')\n"
        "print(*[m in sys.modules for m in ('anthropic', 'ipywidgets', 'markdown_it', 'nb_agent.engine', 'nb_agent.loop.query')])"
    )
    run = fresh_kernel.run(code)
    assert run.status == "ok", run.errors
    assert run.stdout.split() == ["False"] * 5, "a heavy module was imported at load"
    assert fresh_kernel.run("%agent").status == "ok"


def test_reload_keeps_one_transformer(fresh_kernel):
    fresh_kernel.run("%reload_ext nb_agent")
    run = fresh_kernel.run("print(sum(type(t).__name__ == 'AgentCellTransformer' for t in get_ipython().input_transformers_cleanup))")
    assert run.stdout.strip() == "1"
