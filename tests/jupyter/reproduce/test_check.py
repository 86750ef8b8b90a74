"""The reproducibility check, for real: the runner process, a fresh kernel of this Python,
nbclient, the comparison with what the notebook shows."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import nbformat
import pytest

from nb_agent.jupyter.reproduce.check import reproduce

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
SHOW_IMAGE = f"from IPython.display import Image, display\nimport base64\ndisplay(Image(data=base64.b64decode('{PNG}')))"


def code(source: str, count: int | None, *outputs: dict[str, Any], id: str | None = None) -> dict[str, Any]:
    cell = nbformat.v4.new_code_cell(source, execution_count=count)
    cell.id = id or f"c{count}"
    cell.outputs = [nbformat.from_dict(o) for o in outputs]
    return cell


def text(value: str) -> dict[str, Any]:
    return {"output_type": "stream", "name": "stdout", "text": value}


IMAGE = {"output_type": "display_data", "data": {"image/png": PNG, "text/plain": "<IPython.core.display.Image object>"}, "metadata": {}}


def analysis(*, with_scale_cell: bool) -> list[dict[str, Any]]:
    """A notebook as it was saved after running; without the scale cell, the user deleted it
    after running it (its variable lived on in their kernel)."""
    cells = [code("values = [1, 2, 3]", 1)]
    if with_scale_cell:
        cells.append(code("scale = 10", 2))
    cells += [
        code("scaled = [v * scale for v in values]\nprint(scaled)", 3, text("[10, 20, 30]\n")),
        code(SHOW_IMAGE, 4, IMAGE),
        nbformat.v4.new_markdown_cell("The scaled values are ten times the raw ones."),
        code("%%agent\nplot it", 5),
    ]
    return cells


@pytest.fixture(autouse=True)
def inline_plots(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MPLBACKEND", raising=False)


async def test_a_variable_defined_by_a_deleted_cell_makes_the_notebook_fail_from_a_clean_start(tmp_path: Path):
    report = await reproduce(analysis(with_scale_cell=False), cwd=tmp_path, timeout=120)
    text_ = report.text()
    assert not report.reproduces
    assert "cell c3 (#2): NameError: name 'scale' is not defined" in text_
    assert "cell c3 (#2) uses scale, which no cell defines" in text_
    assert "cell c3 (#2): the notebook shows text, the fresh run gave no output" in text_
    assert "cell c4" not in text_  # the image cell does not depend on it
    assert "plot it" not in text_ and "(#5)" not in text_  # the %%agent cell is not run


async def test_a_clean_notebook_reproduces(tmp_path: Path):
    report = await reproduce(analysis(with_scale_cell=True), cwd=tmp_path, timeout=120)
    assert report.reproduces, report.text()
    assert "It reproduces" in report.text() and "not sandboxed" in report.text()


async def test_an_output_of_another_kind_and_the_cells_folder(tmp_path: Path):
    (tmp_path / "data.txt").write_text("42")
    cells = [code("print(open('data.txt').read())", 1, IMAGE)]
    report = await reproduce(cells, cwd=tmp_path, timeout=120)
    assert "cell c1 (#1): the notebook shows image, the fresh run gave text" in report.text()
    assert not report.failures  # the relative path was found: the cells run in the notebook's folder


async def test_the_time_limit_stops_the_run_and_the_fresh_kernel(tmp_path: Path):
    cells = [code("import os\nopen('pid', 'w').write(str(os.getpid()))", 1), code("import time\ntime.sleep(600)", 2), code("print('after')", 3)]
    started = time.monotonic()
    report = await reproduce(cells, cwd=tmp_path, timeout=20)  # the limit counts the fresh kernel's start: leave room for a loaded machine
    assert time.monotonic() - started < 300  # generous: only "stopped" from "ran the 600 s sleep"
    assert "Stopped: cell c2 (#2) went past the time limit; the cells after it were not run." in report.text()
    pid = int((tmp_path / "pid").read_text())
    assert not _alive(pid), "the fresh kernel outlived the check"


def _alive(pid: int) -> bool:
    deadline = time.monotonic() + 30  # generous: a killed process is reaped by its parent, also killed
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/stat") as stat:
                if stat.read().split(") ")[-1].startswith("Z"):
                    return False
        except FileNotFoundError:
            return False
        time.sleep(0.1)
    return True


@pytest.mark.skipif(not os.path.exists("/usr/bin/bwrap"), reason="needs bubblewrap")
async def test_in_the_sandbox_the_code_writes_only_where_bash_may(tmp_path: Path):
    from nb_agent.tools.bash.sandbox.runtime import SandboxRuntime, command_wrapper

    folder = tmp_path / "project"
    folder.mkdir()
    outside = tmp_path / "outside.txt"
    runtime = SandboxRuntime(project_dir=folder)
    cells = [code(f"open('inside.txt', 'w').write('ok')\nopen({str(outside)!r}, 'w').write('escaped')", 1)]
    report = await reproduce(cells, cwd=folder, timeout=120, wrap=command_wrapper(runtime, additional_directories=()))
    assert "in the Bash sandbox" in report.text()
    assert (folder / "inside.txt").read_text() == "ok"
    assert not outside.exists()  # the sandbox's /tmp is its own
