"""The reproducibility check: the notebook run top to bottom in a fresh scratch kernel,
compared with what the notebook shows.

The cells (the live page's, unsaved edits included, or the file's) go to
:mod:`~nb_agent.jupyter.reproduce.runner` in a process of its own, inside the Bash sandbox
when that is on; the user's kernel, notebook and file are never touched (the code's own
effects, such as files it writes, are real: that is why the model's call asks). ``%%agent``
cells are not run. The report names the cells that fail, the outputs whose kind differs from
the notebook's (an image, text, an error, a widget, or nothing), names used before any cell
above defines them, and where the run stopped.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import signal
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nb_agent.errors import ToolError
from nb_agent.jupyter.bounded_list import bounded_list, cut_line
from nb_agent.jupyter.reproduce.order import EarlyUse, names_used_early
from nb_agent.jupyter.reproduce.runner import RESULT_MARK, output_kind
from nb_agent.tools.bash.sandbox.runtime import command_wrapper

DEFAULT_TIMEOUT_S = 120
MAX_TIMEOUT_S = 1800
STARTUP_GRACE_S = 60
"""Beyond the time limit for the cells: the runner's start and the kernel's (a generous
bound that only tells a slow machine from a runner that hangs)."""
MAX_ENTRIES = 10
MAX_LINE_CHARS = 200
AGENT_CELL = "%%agent"
AGENT_LINE = re.compile(r"^[ \t]*%(?:agent\b|(?:re)?load_ext[ \t]+nb_agent\b).*$", re.MULTILINE)
"""``%agent ...`` and ``%load_ext nb_agent`` lines: the agent's own, not the analysis (run in
the fresh kernel they would fail, or start another check from inside this one)."""

@dataclass(frozen=True, kw_only=True)
class NotebookCell:
    """A code cell to run, and the kinds of output the notebook shows for it."""

    position: int
    cell_id: str
    source: str
    ran: bool
    """It has an execution count in the notebook (its outputs are what a run gave)."""
    kinds: frozenset[str] = frozenset()

    @property
    def ref(self) -> str:
        return f"cell {self.cell_id} (#{self.position})"


def cells_to_run(cells: Sequence[Any]) -> list[NotebookCell]:
    """The code cells of ``cells`` (live cells, or nbformat cells as dicts), ``%%agent`` and
    blank cells left out, and the ``%agent`` lines of the others."""
    found = []
    for position, cell in enumerate(cells, start=1):
        get = cell.get if isinstance(cell, dict) else lambda key, default=None, c=cell: getattr(c, key, default)
        source = get("source", "")
        source = "".join(source) if isinstance(source, list) else str(source)
        if source.lstrip().startswith(AGENT_CELL):
            continue
        source = AGENT_LINE.sub("", source)
        if get("cell_type") != "code" or not source.strip():
            continue
        outputs = get("outputs", None) or []
        kinds = frozenset(kind for output in outputs if (kind := output_kind(dict(output))))
        cell_id = str(get("id", None) or f"cell-{position - 1}")
        found.append(NotebookCell(position=position, cell_id=cell_id, source=source, ran=get("execution_count", None) is not None, kinds=kinds))
    return found


def saved_cells(path: Path | None) -> list[Any]:
    """The cells of the notebook file at ``path`` (the check without the live page); a
    :class:`ToolError` saying why when there is no such notebook or it cannot be read."""
    import nbformat

    if path is None or not path.is_file():
        raise ToolError("No notebook to check: open it in JupyterLab (with nb-agent-live), or say which with %agent notebook PATH.")
    try:
        return list(nbformat.read(path, as_version=4).cells)
    except Exception as exc:  # a broken file: say why
        raise ToolError(f"The notebook {path} cannot be read: {exc}") from exc


@dataclass(kw_only=True)
class ScratchRun:
    """What the runner reported (see :mod:`.runner`)."""

    cells: list[dict[str, Any]] = field(default_factory=list)
    kernel_s: float = 0.0
    total_s: float = 0.0
    stopped: str | None = None
    python: str = ""
    problem: str | None = None
    """Why there is no result (the runner failed or went past the time limit)."""
    sandbox_notes: list[str] = field(default_factory=list)
    """What the sandbox undid after the run (protected paths the code created, moved aside)."""


async def run_scratch(cells: Sequence[NotebookCell], *, cwd: Path, timeout: float, wrap: command_wrapper | None = None) -> ScratchRun:
    """Run ``cells`` in a fresh kernel in a process of its own (``wrap``: the sandbox's
    command wrapper, or ``None``); killed with everything it started at the time limit or
    when the caller is cancelled."""
    argv = [sys.executable, "-m", "nb_agent.jupyter.reproduce.runner"]
    env = dict(os.environ)
    pass_fds: tuple[int, ...] = ()
    with tempfile.TemporaryDirectory(prefix="nb_agent-reproduce-") as scratch:
        if wrap is not None:
            argv, env = wrap(argv, env, cwd=cwd, cwd_file=Path(scratch) / "cwd")
            pass_fds = wrap.pass_fds
        process = await asyncio.create_subprocess_exec(
            *argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
            cwd=str(cwd), env=env, start_new_session=True, pass_fds=pass_fds,
        )  # fmt: skip
        if wrap is not None:
            wrap.started()
        notes: list[str] = []
        try:
            job = {"cells": [{"source": c.source} for c in cells], "timeout": timeout, "cwd": str(cwd)}
            run = await asyncio.wait_for(_result(process, json.dumps(job)), timeout + STARTUP_GRACE_S)
        except asyncio.TimeoutError:
            run = ScratchRun(problem=f"the run went past its time limit ({timeout:g} s) and was stopped")
        finally:
            _kill(process)
            with contextlib.suppress(asyncio.TimeoutError, ProcessLookupError):
                await asyncio.wait_for(process.wait(), 10)
            if wrap is not None:
                notes = wrap.after_exit()
    run.sandbox_notes = notes
    return run


async def _result(process: asyncio.subprocess.Process, job: str) -> ScratchRun:
    assert process.stdin is not None and process.stdout is not None and process.stderr is not None
    process.stdin.write(job.encode())
    await process.stdin.drain()
    process.stdin.close()
    errors = asyncio.ensure_future(process.stderr.read())
    async for line in process.stdout:
        text = line.decode(errors="replace")
        if text.startswith(RESULT_MARK):
            errors.cancel()
            data = json.loads(text[len(RESULT_MARK) :])
            return ScratchRun(**{k: data[k] for k in ("cells", "kernel_s", "total_s", "stopped", "python")})
    await process.wait()
    stderr = (await errors).decode(errors="replace").strip().splitlines()
    return ScratchRun(problem="the fresh kernel could not run the notebook: " + (stderr[-1] if stderr else f"exit status {process.returncode}"))


def _kill(process: asyncio.subprocess.Process) -> None:
    """The runner and the kernel it started (its process group)."""
    if process.returncode is None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)


@dataclass(kw_only=True)
class ReproReport:
    """What the check found; :meth:`text` is what the model and the user read."""

    cells: list[NotebookCell]
    run: ScratchRun
    sandboxed: bool
    failures: list[str] = field(default_factory=list)
    differences: list[str] = field(default_factory=list)
    early: list[str] = field(default_factory=list)
    stopped: str | None = None

    @property
    def reproduces(self) -> bool:
        return self.run.problem is None and not (self.failures or self.differences or self.early or self.stopped)

    def text(self) -> str:
        run = self.run
        where = "in the Bash sandbox" if self.sandboxed else "not sandboxed"
        head = f"Reproducibility check: the notebook's {len(self.cells)} code cells run top to bottom in a fresh kernel"
        head += f" (Python {run.python or sys.version.split()[0]}, {where}; your kernel, notebook and file untouched"
        head += f"; {run.total_s:.1f} s)." if run.problem is None else ")."
        lines = [head]
        if run.problem is not None:
            lines.append(f"No result: {run.problem}.")
        if self.stopped:
            lines.append(self.stopped)
        lines += bounded_list("Cells that fail in the fresh kernel", self.failures, max_entries=MAX_ENTRIES)
        lines += bounded_list("Outputs of another kind than the notebook shows", self.differences, max_entries=MAX_ENTRIES)
        lines += bounded_list("Names used before any cell above defines them", self.early, max_entries=MAX_ENTRIES)
        lines += run.sandbox_notes
        if self.reproduces:
            lines.append("It reproduces: every cell ran without error, and each gave output of the kinds the notebook shows.")
        elif run.problem is None:
            lines.append("It does not reproduce as it is: run top to bottom in a fresh kernel, it behaves differently from what the notebook shows.")
        return "\n".join(lines)


def _kinds_text(kinds: frozenset[str] | set[str] | list[str]) -> str:
    return " and ".join(sorted(kinds)) if kinds else "no output"


def _early_text(use: EarlyUse) -> str:
    if use.defined_at is None:
        return f"cell {use.cell_id} (#{use.position}) uses {use.name}, which no cell defines (it exists only in a kernel that ran other code)"
    position, cell_id = use.defined_at
    if position == use.position:
        return f"cell {use.cell_id} (#{use.position}) uses {use.name} before it defines it"
    return f"cell {use.cell_id} (#{use.position}) uses {use.name}, which only cell {cell_id} (#{position}) below defines"


def build_report(cells: list[NotebookCell], run: ScratchRun, *, sandboxed: bool) -> ReproReport:
    report = ReproReport(cells=cells, run=run, sandboxed=sandboxed)
    report.early = [cut_line(_early_text(use), MAX_LINE_CHARS) for use in names_used_early([(c.position, c.cell_id, c.source) for c in cells])]
    if run.problem is not None:
        return report
    for cell, result in zip(cells, run.cells):
        if not result.get("ran"):
            continue
        if result.get("error"):
            report.failures.append(cut_line(f"{cell.ref}: {result['error']}", MAX_LINE_CHARS))
        fresh = set(result.get("kinds") or []) - {"error"}
        shown = set(cell.kinds) - {"error"}
        if cell.ran and fresh != shown:
            report.differences.append(cut_line(f"{cell.ref}: the notebook shows {_kinds_text(shown)}, the fresh run gave {_kinds_text(fresh)}", MAX_LINE_CHARS))
    if run.stopped:
        reason, _, index = run.stopped.partition(":")
        cell = cells[int(index)] if index.isdigit() and int(index) < len(cells) else None
        what = "went past the time limit" if reason == "timeout" else "made the kernel die"
        report.stopped = f"Stopped: {cell.ref if cell else 'a cell'} {what}; the cells after it were not run."
    return report


async def reproduce(cells: Sequence[Any], *, cwd: Path, timeout: float = DEFAULT_TIMEOUT_S, wrap: command_wrapper | None = None) -> ReproReport:
    """Check ``cells`` (live or nbformat cells, in order); ``wrap``: the sandbox's command wrapper."""
    to_run = cells_to_run(cells)
    if not to_run:
        raise ToolError("The notebook has no code cell to run (other than %%agent cells).")
    run = await run_scratch(to_run, cwd=cwd, timeout=min(float(timeout), MAX_TIMEOUT_S), wrap=wrap)
    return build_report(to_run, run, sandboxed=wrap is not None)
