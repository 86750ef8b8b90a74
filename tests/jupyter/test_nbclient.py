"""Headless execution with nbclient (a kernel, no widget frontend): the saved notebook
holds the static rendering, and re-executing gives the same outputs."""

from __future__ import annotations

import re

import nbformat
from jupyter_client import KernelManager
from nbclient import NotebookClient

from nb_agent.testing import Reply, text, tool_use

KERNEL_NAME = "nb-agent-test"


def _execute(tmp_path, kernel_env, kernel_spec_manager):
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [
        nbformat.v4.new_code_cell("%load_ext nb_agent"),
        nbformat.v4.new_code_cell("%%agent --permission-mode bypassPermissions\nWhat is 6 times 7?"),
        nbformat.v4.new_code_cell("print(product)"),
    ]
    km = KernelManager(kernel_name=KERNEL_NAME, kernel_spec_manager=kernel_spec_manager)
    client = NotebookClient(notebook, km=km, timeout=60, resources={"metadata": {"path": str(tmp_path)}})
    client.execute(env=kernel_env, cwd=str(tmp_path))
    return notebook


def _script(server):
    server.script.add(
        Reply(content=[tool_use("ExecuteCode", {"code": "product = 6 * 7\nproduct"})]),
        Reply(content=[text("6 × 7 = **42**.")]),
    )


def test_saved_outputs_are_the_static_rendering_and_stable(tmp_path, model_server, kernel_env, kernel_spec_manager):
    _script(model_server)
    first = _execute(tmp_path, kernel_env, kernel_spec_manager)
    agent_cell = first.cells[1]
    outputs = [o for o in agent_cell.outputs if o.output_type == "display_data"]
    assert len(outputs) == 2  # the static rendering, then the run card
    assert outputs[1].data["text/plain"] == "This run changed variables: product. %agent rewind 1 undoes it."
    data = outputs[0].data
    assert "application/vnd.jupyter.widget-view+json" not in data
    assert "6 × 7 = **42**." in data["text/markdown"] and "<strong>42</strong>" in data["text/html"]
    assert "ExecuteCode" in data["text/markdown"]
    assert first.cells[2].outputs[0].text == "42\n"  # the agent's variable is the notebook's
    _script(model_server)
    second = _execute(tmp_path, kernel_env, kernel_spec_manager)
    strip = lambda cell: [{k: _untimed(v) for k, v in o.items() if k != "execution_count"} for o in cell.outputs]  # noqa: E731
    assert any("<time>" in str(o) for o in strip(agent_cell))  # the summary line's time, the one thing that differs
    assert strip(second.cells[1]) == strip(agent_cell)


RUN_TIME = re.compile(r"(\$\d+\.\d{4} · )(\d+\.\ds|\d+m\d\ds)")
"""How long a run took, at the end of its summary line (notebooks/sanitize.cfg's [run_time])."""


def _untimed(value):
    if isinstance(value, str):
        return RUN_TIME.sub(r"\1<time>", value)
    if isinstance(value, dict):
        return {k: _untimed(v) for k, v in value.items()}
    return value


def test_a_folder_that_needs_trust_runs_untrusted_under_nbclient(tmp_path, model_server, kernel_env, kernel_spec_manager):
    """No frontend can click the trust card (nbclient sends no cell id): the cell runs
    untrusted at once and says how to trust, instead of waiting for the cell timeout."""
    import json

    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.json").write_text(json.dumps({"permissions": {"allow": ["Bash"]}}))
    env = {**kernel_env, "NB_AGENT_TRUST_FILE": str(tmp_path.parent / f"{tmp_path.name}-trusted.json")}
    env.pop("NB_AGENT_RENDER", None)  # a plain nbclient / papermill run: the widget view, as in a kernel
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell("%load_ext nb_agent"), nbformat.v4.new_code_cell("%%agent\nhello")]
    model_server.script.add(Reply(content=[text("Hello.")]))
    requests_before = len(model_server.requests)
    km = KernelManager(kernel_name=KERNEL_NAME, kernel_spec_manager=kernel_spec_manager)
    # 60 s only separates "ran" from "waited for a click that never comes" (the hang this guards).
    client = NotebookClient(notebook, km=km, timeout=60, resources={"metadata": {"path": str(tmp_path)}})
    client.execute(env=env, cwd=str(tmp_path))
    assert len(model_server.requests) == requests_before + 1
    shown = json.dumps([o for o in notebook.cells[1].outputs])
    assert "not trusted" in shown and "%agent trust" in shown, shown
    assert not (tmp_path.parent / f"{tmp_path.name}-trusted.json").exists(), "no answer was recorded"
