"""``%load_ext nb_agent`` in a fresh kernel: without the heavy imports (the load time is
printed by bench/load_ext_time.py, not asserted: these machines are shared and noisy); it
only starts them in the background (``nb_agent.jupyter.warm``), unless told not to."""

from __future__ import annotations

import pytest

# pydantic and the tool machinery: what the checkpoints once pulled in through InspectVariables (0.14 -> 1.1 s)
HEAVY = (
    "anthropic", "ipywidgets", "markdown_it", "pydantic", "nb_agent.tools.base", "nb_agent.engine", "nb_agent.loop.query",
    "nb_agent.jupyter.tools", "nb_agent.tools.bash",  # the first engine's tools, warmed too
)


@pytest.fixture(scope="module")
def fresh_kernel(make_kernel):
    return make_kernel("fresh", extra_env={"NB_AGENT_WARM_IMPORTS": "0"})


def test_load_ext_imports_nothing_heavy(fresh_kernel):
    code = (
        "import sys\n"
        "get_ipython().run_line_magic('load_ext', 'nb_agent')\n"
        f"print(*[m in sys.modules for m in {HEAVY!r}])"
    )
    run = fresh_kernel.run(code)
    assert run.status == "ok", run.errors
    assert run.stdout.split() == ["False"] * len(HEAVY), "a heavy module was imported at load"
    assert fresh_kernel.run("%agent").status == "ok"


def test_the_heavy_imports_are_made_in_the_background(make_kernel):
    kernel = make_kernel("warmed")
    code = (
        "import sys, threading\n"
        "get_ipython().run_line_magic('load_ext', 'nb_agent')\n"
        "from nb_agent.jupyter import warm\n"
        "print(warm.start() is not threading.main_thread())\n"
        "warm.start().join()\n"
        "import gc\n"
        f"print(*[m in sys.modules for m in {HEAVY!r}], gc.isenabled())"  # paused during the imports only
    )
    run = kernel.run(code, timeout=120)
    assert run.status == "ok", run.errors
    assert run.stdout.split() == ["True"] * (2 + len(HEAVY))



@pytest.mark.parametrize("servers", [False, True], ids=["no MCP servers", "an MCP server"])
def test_the_mcp_sdk_is_warmed_only_when_a_server_is_configured(make_kernel, tmp_path, servers):
    # Without servers the first run never needs the SDK (half a second of imports); with one
    # it starts the server before its first request. A server in an untrusted folder counts.
    home = tmp_path / "home"
    home.mkdir()
    kernel = make_kernel("warm-mcp", extra_env={"HOME": str(home)})
    if servers:
        (kernel.cwd / ".mcp.json").write_text('{"mcpServers": {"demo": {"command": "demo-server"}}}')
    code = (
        "import sys\n"
        "get_ipython().run_line_magic('load_ext', 'nb_agent')\n"
        "from nb_agent.jupyter import warm\n"
        "warm.start().join()\n"
        "print('nb_agent.agent' in sys.modules, 'mcp' in sys.modules)"
    )
    run = kernel.run(code, timeout=120)
    assert run.status == "ok", run.errors
    assert run.stdout.split() == ["True", str(servers)]

def test_reload_keeps_one_transformer(fresh_kernel):
    fresh_kernel.run("%reload_ext nb_agent")
    run = fresh_kernel.run("print(sum(type(t).__name__ == 'AgentCellTransformer' for t in get_ipython().input_transformers_cleanup))")
    assert run.stdout.strip() == "1"
