"""The reproducibility check's runner: ``python -m nb_agent.jupyter.reproduce.runner``.

Runs in its own process (inside the Bash sandbox when that is on), so the user's kernel is
never involved: it reads a job from stdin (the cells' sources, a time limit, the folder),
starts a fresh kernel of the same interpreter with nbclient (a clean IPython profile, its
connection file in a temporary folder), runs the cells top to bottom, and prints one JSON
line: per cell the kinds of its outputs and its error, and the time each cell took. Outputs
themselves are not kept and nothing is written back: the notebook is an in-memory copy.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

RESULT_MARK = "nb_agent-reproduce-result:"
MAX_ERROR_CHARS = 300

KIND_OF_MIME = (
    ("application/vnd.jupyter.widget-view+json", "widget"),
    ("image/", "image"),
    ("text/", "text"),
    ("application/json", "text"),
)
"""The kind an output shows, by its richest MIME type (the live snapshot keeps plain text
in place of HTML, so text of any markup is one kind)."""


def output_kind(output: dict[str, Any]) -> str | None:
    """``text``, ``image``, ``widget`` or ``error`` (``None``: stderr, which warnings fill)."""
    kind = output.get("output_type")
    if kind == "stream":
        return "text" if output.get("name") == "stdout" else None
    if kind == "error":
        return "error"
    data = output.get("data") or {}
    plain = str(data.get("text/plain", ""))
    if "output left out of the live snapshot" in plain and "image/" in plain:
        return "image"  # the page left a large image out of its snapshot, with this note
    for prefix, label in KIND_OF_MIME:
        if any(mime.startswith(prefix) for mime in data):
            return label
    return None


def _kernel_spec(folder: Path) -> Any:
    from jupyter_client.kernelspec import KernelSpecManager

    spec = folder / "kernels" / "nb-agent-scratch"
    spec.mkdir(parents=True)
    argv = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    (spec / "kernel.json").write_text(json.dumps({"argv": argv, "display_name": "scratch", "language": "python"}))
    return KernelSpecManager(kernel_dirs=[str(spec.parent)])


async def run(job: dict[str, Any]) -> dict[str, Any]:
    """Run the job's cells; a cell past the time limit stops the run (the later cells are
    reported as not run)."""
    from jupyter_client.manager import AsyncKernelManager

    started = time.monotonic()
    deadline = started + float(job["timeout"])
    with tempfile.TemporaryDirectory(prefix="nb_agent-reproduce-") as scratch:
        folder = Path(scratch)
        os.environ.update(
            {"JUPYTER_RUNTIME_DIR": str(folder / "runtime"), "IPYTHONDIR": str(folder / "ipython"), "NB_AGENT_WARM_IMPORTS": "0"}
        )
        # The async manager: with a blocking one nbclient waits for output on the event loop
        # itself, where the cell's time limit never fires. Started before nbclient is
        # imported, so the kernel boots while this process imports it.
        manager = AsyncKernelManager(kernel_name="nb-agent-scratch", kernel_spec_manager=_kernel_spec(folder))
        await manager.start_kernel(cwd=job["cwd"], extra_arguments=["--HistoryManager.hist_file=:memory:"])
        try:
            cells, kernel_s, stopped = await _execute(manager, job, started, deadline)
        finally:
            await manager.shutdown_kernel(now=True)
    return {"cells": cells, "kernel_s": kernel_s, "total_s": time.monotonic() - started, "stopped": stopped, "python": sys.version.split()[0]}


async def _execute(manager: Any, job: dict[str, Any], started: float, deadline: float) -> tuple[list[dict[str, Any]], float, str | None]:
    """Each cell in turn in the started kernel: the cells' results, the time until the kernel
    answered, and why the run stopped early (``None``: it did not)."""
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellTimeoutError, DeadKernelError

    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(cell["source"]) for cell in job["cells"]]
    client = NotebookClient(notebook, km=manager, timeout=_left(deadline), allow_errors=True, record_timing=True)
    stopped: str | None = None
    async with client.async_setup_kernel():
        kernel_s = time.monotonic() - started
        for index, cell in enumerate(notebook.cells):
            client.timeout = _left(deadline)
            try:
                await client.async_execute_cell(cell, index)
            except CellTimeoutError:
                stopped = f"timeout:{index}"
                break
            except DeadKernelError:
                stopped = f"died:{index}"
                break
    return [_cell_result(cell) for cell in notebook.cells], kernel_s, stopped


def _left(deadline: float) -> int:
    """Whole seconds left before ``deadline`` (nbclient's timeout), at least one."""
    return max(1, int(deadline - time.monotonic()))


def _cell_result(cell: Any) -> dict[str, Any]:
    kinds = sorted({kind for output in cell.get("outputs", []) if (kind := output_kind(output))})
    error = next((o for o in cell.get("outputs", []) if o.get("output_type") == "error"), None)
    timing = cell.get("metadata", {}).get("execution", {})
    return {
        "ran": bool(timing),
        "kinds": kinds,
        "error": f"{error.get('ename', 'Error')}: {error.get('evalue', '')}"[:MAX_ERROR_CHARS] if error else None,
        "seconds": _seconds(timing),
    }


def _seconds(timing: dict[str, str]) -> float:
    from datetime import datetime

    try:
        begin = datetime.fromisoformat(timing["iopub.execute_input"].replace("Z", "+00:00"))
        end = datetime.fromisoformat(timing["shell.execute_reply"].replace("Z", "+00:00"))
    except (KeyError, ValueError):
        return 0.0
    return max(0.0, (end - begin).total_seconds())


UNUSED_HEAVY_IMPORTS = ("rfc3987_syntax",)
"""Imported by jsonschema (through nbclient's nbformat) when installed, to check one string
format the runner never validates; building its grammar at import takes about 1.5 s of CPU.
Marked missing in this process, jsonschema leaves that format out."""


def main() -> None:
    for name in UNUSED_HEAVY_IMPORTS:
        sys.modules.setdefault(name, None)  # type: ignore[assignment]
    job = json.loads(sys.stdin.read())
    result = asyncio.run(run(job))
    sys.stdout.write(RESULT_MARK + json.dumps(result) + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
