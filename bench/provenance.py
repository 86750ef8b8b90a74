"""Provenance lines (issue 25): the time to build the note of what the kernel ran for a
300-cell notebook (target ≤ 20 ms).

A real IPython shell runs 300 cells of typical data-science code (imports, assignments,
functions, in-place changes), each with its cell id as JupyterLab sends it, then re-runs a
few cells out of order; the notebook the page would report then has some cells edited
since they ran, a few deleted (their variables left behind: hidden state), some never run,
and a few counts from an earlier kernel. The figure is the whole note: the user's
variables, the history walk, the cells' classification and the text. Three figures: "first note" is the first note of a kernel where nb_agent was
loaded before the cells ran (each input was read for its names as it ran, by the ledger's
hook: the note parses only cells edited since); "loaded late" is the first note when nothing
was read ahead (nb_agent loaded after 300 cells ran: the whole history is parsed then);
"later notes" is every note after (everything parsed once, by source). The hook's own cost
per cell is printed too.

    python bench/provenance.py [--cells 300] [--rounds 20]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output

from nb_agent.jupyter.live.protocol import LiveCell
from nb_agent.jupyter.provenance import CellLedger, KernelHistory, provenance
from nb_agent.jupyter.provenance.code_names import cell_code_names, code_names
from nb_agent.jupyter.user_namespace import user_variables


def cell_source(i: int) -> str:
    kinds = [
        f"import math as m{i}\nvalues_{i} = [m{i}.sqrt(k) for k in range({i % 7 + 3})]\ntotal_{i} = sum(values_{i})",
        f"def step_{i}(x, scale={i}):\n    '''Scale and shift.'''\n    y = x * scale\n    return y + {i}\n\nresult_{i} = step_{i}({i})",
        f"table_{i} = {{'a': {i}, 'b': [{i}, {i + 1}]}}\ntable_{i}['c'] = table_{i}['a'] * 2\nfor key in list(table_{i}):\n    table_{i}[key + '_copy'] = table_{i}[key]",
        f"series_{i} = list(range({i % 11 + 5}))\nseries_{i}.sort(reverse=True)\nmean_{i} = sum(series_{i}) / len(series_{i})\nprint(f'mean {{mean_{i}:.2f}}')",
        f"class Model_{i}:\n    def __init__(self):\n        self.w = {i}\n    def fit(self, data):\n        self.w += len(data)\n        return self\n\nmodel_{i} = Model_{i}().fit([1, 2, 3])",
    ]
    return kinds[i % len(kinds)]


def run(shell: InteractiveShell, source: str, cell_id: str) -> int:
    with capture_output():
        result = shell.run_cell(source, store_history=True, cell_id=cell_id)
    return result.execution_count


def build(cells: int) -> tuple[InteractiveShell, CellLedger, list[LiveCell]]:
    shell = InteractiveShell.instance()
    ledger = CellLedger()
    ledger.install(shell)
    notebook: list[LiveCell] = []
    for i in range(cells):
        source = cell_source(i)
        count = run(shell, source, f"cell-{i:04d}")
        notebook.append(LiveCell(id=f"cell-{i:04d}", source=source, execution_count=count))
    for i in range(5, cells, 37):  # re-run some cells after the ones below them
        notebook[i].execution_count = run(shell, notebook[i].source, notebook[i].id)
    for i in range(3, cells, 29):  # edited since they ran
        notebook[i].source += "\nextra = 1"
    for i in range(7, cells, 41):  # never run
        notebook[i].execution_count = None
    for i in range(11, cells, 53):  # counts of an earlier kernel
        notebook[i].execution_count = 10_000 + i
    for i in sorted(range(13, cells, 47), reverse=True):  # deleted: their variables stay
        del notebook[i]
    while len(notebook) < cells:  # 300 cells all the same: markdown notes
        notebook.append(LiveCell(id=f"note-{len(notebook)}", cell_type="markdown", source="## Notes\nSome text."))
    return shell, ledger, notebook


def note(shell: InteractiveShell, ledger: CellLedger, notebook: list[LiveCell]) -> str | None:
    variables = [name for name, _ in user_variables(shell)]
    return provenance(notebook, KernelHistory.of(shell, ledger), variables).text()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cells", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    shell, ledger, notebook = build(args.cells)
    parsed = shell.history_manager.input_hist_parsed
    first, late, warm, hook = [], [], [], []
    text = None
    for _ in range(args.rounds):
        code_names.cache_clear()
        cell_code_names.cache_clear()
        started = time.perf_counter()
        for source in parsed[1:]:  # what the hook did as each cell ran
            code_names(source)
        hook.append((time.perf_counter() - started) / (len(parsed) - 1))
        started = time.perf_counter()
        text = note(shell, ledger, notebook)
        first.append(time.perf_counter() - started)
        started = time.perf_counter()
        note(shell, ledger, notebook)
        warm.append(time.perf_counter() - started)
        code_names.cache_clear()
        cell_code_names.cache_clear()
        started = time.perf_counter()
        note(shell, ledger, notebook)
        late.append(time.perf_counter() - started)
    variables = len(user_variables(shell))
    print(f"notebook: {len(notebook)} cells, {len(shell.history_manager.input_hist_raw) - 1} inputs in the kernel's history, {variables} variables")
    print(f"note: {len(text or '')} characters, {len((text or '').splitlines())} lines")
    for label, times in (("first note", first), ("later notes", warm), ("loaded late (nothing read ahead)", late)):
        print(f"{label + ':':34s} median {statistics.median(times) * 1000:5.1f} ms, max {max(times) * 1000:5.1f} ms")
    print(f"{'hook, per cell run:':34s} median {statistics.median(hook) * 1000:5.2f} ms")
    print("target: <= 20 ms; load average (1, 5, 15 min): {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))


if __name__ == "__main__":
    main()
