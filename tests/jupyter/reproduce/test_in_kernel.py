"""The reproducibility check from a real kernel: ``%agent reproduce`` and the model's
ReproduceNotebook tool, on a notebook with a hidden-state bug and on a clean one; the user's
kernel and file are left as they were."""

from __future__ import annotations

from pathlib import Path

import nbformat

from nb_agent.testing import Reply, text, tool_use
from tests.jupyter.conftest import last_user_text

BYPASS = "%%agent --permission-mode bypassPermissions\n"


def _write_notebook(path: Path, *, with_scale_cell: bool) -> bytes:
    """The analysis as saved after running it; without the scale cell, the user deleted it
    after running it (``scale`` lives on in their kernel only). Its first cell writes the
    process id of the kernel that runs it to ``<name>.pid`` beside it."""
    notebook = nbformat.v4.new_notebook()
    first = f"import os\nvalues = [1, 2, 3]\n_ = open('{path.stem}.pid', 'w').write(str(os.getpid()))"
    cells = [nbformat.v4.new_code_cell(first, execution_count=1)]
    if with_scale_cell:
        cells.append(nbformat.v4.new_code_cell("scale = 10", execution_count=2))
    scaled = nbformat.v4.new_code_cell("scaled = [v * scale for v in values]\nprint(scaled)", execution_count=3)
    scaled.outputs = [nbformat.v4.new_output("stream", name="stdout", text="[10, 20, 30]\n")]
    cells += [scaled, nbformat.v4.new_code_cell("%%agent\nsummarize it")]
    for index, cell in enumerate(cells):
        cell.id = f"cell{index}"
    notebook.cells = cells
    nbformat.write(notebook, path)
    return path.read_bytes()


def _user_state(kernel) -> str:
    run = kernel.run("print(scale, 'values' in dir(), 'scaled' in dir(), os_pid_of_user_kernel())")
    assert run.status == "ok", run.errors
    return run.stdout.strip()


def test_agent_reproduce_finds_the_variable_of_a_deleted_cell_and_leaves_the_kernel_and_file(kernel):
    path = kernel.cwd / "hidden_state.ipynb"
    saved = _write_notebook(path, with_scale_cell=False)
    # the user's kernel still has what the deleted cell set
    setup = kernel.run("import os\nscale = 10\nos_pid_of_user_kernel = os.getpid")
    assert setup.status == "ok", setup.errors
    before = _user_state(kernel)
    assert kernel.run(f"%agent notebook {path}").status == "ok"

    run = kernel.run("%agent reproduce --timeout 120", timeout=300)  # generous: a fresh kernel starts under load
    assert run.status == "ok", run.errors
    assert f"Checking {path} as saved" in run.stdout
    assert "cell cell1 (#2): NameError: name 'scale' is not defined" in run.stdout
    assert "cell cell1 (#2) uses scale, which no cell defines" in run.stdout
    assert "the notebook shows text, the fresh run gave no output" in run.stdout
    assert "It does not reproduce as it is" in run.stdout
    assert "summarize it" not in run.stdout  # the %%agent cell is not run

    # the user's kernel: its variables as they were, none of the scratch run's; the file unchanged
    assert _user_state(kernel) == before
    assert path.read_bytes() == saved
    scratch_pid = int((kernel.cwd / "hidden_state.pid").read_text())  # the cells ran in the notebook's folder
    assert str(scratch_pid) not in before.split()


def test_agent_reproduce_says_a_clean_notebook_reproduces(kernel):
    path = kernel.cwd / "clean.ipynb"
    _write_notebook(path, with_scale_cell=True)
    assert kernel.run(f"%agent notebook {path}").status == "ok"
    run = kernel.run("%agent reproduce", timeout=300)  # generous: a fresh kernel starts under load
    assert run.status == "ok", run.errors
    assert "It reproduces" in run.stdout, run.stdout


def test_agent_reproduce_rejects_a_bad_time_limit_with_its_usage(kernel):
    run = kernel.run("%agent reproduce --timeout soon")
    assert run.status == "ok", run.errors
    assert "--timeout takes a number of seconds, not 'soon'" in run.stdout
    assert "usage: %agent reproduce [--timeout SECONDS]" in run.stdout


def test_the_model_calls_the_check_and_reads_the_report(kernel, requests_since):
    path = kernel.cwd / "for_the_model.ipynb"
    saved = _write_notebook(path, with_scale_cell=False)
    assert kernel.run(f"%agent notebook {path}").status == "ok"
    kernel.server.script.add(
        Reply(content=[tool_use("ReproduceNotebook", {"timeout_s": 120})]),
        Reply(content=[text("It depends on a deleted cell.")]),
    )
    run = kernel.run(BYPASS + "does this notebook run from a clean start?", timeout=300)  # generous: a fresh kernel
    assert run.status == "ok", run.errors
    (first, second) = requests_since()
    assert "ReproduceNotebook" in [tool["name"] for tool in first["tools"]]
    report = last_user_text(second)
    assert "uses scale, which no cell defines" in report and "NameError" in report
    assert path.read_bytes() == saved


def test_the_models_check_asks_first_when_it_would_run_unsandboxed(kernel, requests_since):
    """Its cells run for real: a cell the agent wrote must not run unasked."""
    path = kernel.cwd / "asks.ipynb"
    _write_notebook(path, with_scale_cell=True)
    assert kernel.run(f"%agent notebook {path}").status == "ok"
    kernel.server.script.add(Reply(content=[tool_use("ReproduceNotebook", {})]), Reply(content=[text("Denied.")]))
    run = kernel.start("%%agent --permission-mode default\ncheck it")
    kernel.wait_for(run, lambda: kernel.button("Deny") is not None)
    kernel.click(kernel.button("Deny"))
    kernel.wait(run)
    assert run.status == "ok", run.errors
    assert not (kernel.cwd / "asks.pid").exists()  # denied: no cell of it ran
    result = [b for b in requests_since()[-1]["messages"][-1]["content"] if b.get("type") == "tool_result"]
    assert result and result[0].get("is_error") is True
