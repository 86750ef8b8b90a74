"""Run one bench on two versions of nb_agent in the same run, and print them side by side.

A bench script defines ``measure(args) -> dict[str, float | int | str]`` and calls
:func:`main`. By default the script runs twice, each time in a fresh subprocess: once
with the ``nb_agent`` package of a baseline commit (``--before``, default ``52546bb``, the
commit whose figures issue 24 quotes, unless the bench names its own; exported with ``git archive`` and put first on
``PYTHONPATH``, so kernels the bench starts import it too) and once with this working
tree's. Each prints its figures as JSON; the parent prints ``before → after``.

    python bench/<name>.py                 # both, side by side
    python bench/<name>.py --only after    # this tree only
    python bench/<name>.py --before REF    # another baseline
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
BASELINE_REF = "52546bb"
_CHILD_FLAG = "--child-tree"
_RESULT_PREFIX = "BENCH-FIGURES "

Figures = dict[str, Any]


def export_tree(ref: str) -> Path:
    """The ``nb_agent`` package of ``ref`` in a new temporary directory."""
    target = Path(tempfile.mkdtemp(prefix="nb-agent-bench-"))
    archive = subprocess.run(["git", "-C", str(REPO), "archive", ref, "nb_agent"], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive, check=True)
    return target


def _run_child(script: Path, tree: Path, argv: list[str]) -> Figures:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tree), *filter(None, [os.environ.get("PYTHONPATH")])]))
    process = subprocess.run(
        [sys.executable, str(script), _CHILD_FLAG, str(tree), *argv], env=env, stdout=subprocess.PIPE, text=True
    )
    if process.returncode != 0:
        raise SystemExit(f"{script.name} failed on {tree} (exit {process.returncode})")
    for line in reversed(process.stdout.splitlines()):
        if line.startswith(_RESULT_PREFIX):
            return json.loads(line[len(_RESULT_PREFIX) :])
    raise SystemExit(f"{script.name} printed no figures on {tree}")


def _check_tree(tree: Path) -> None:
    import nb_agent

    where = Path(nb_agent.__file__).resolve()
    if tree.resolve() not in where.parents:
        raise SystemExit(f"imported nb_agent from {where}, not from {tree}")


def _format(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:,.3f}" if abs(value) < 100 else f"{value:,.1f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def print_table(columns: dict[str, Figures], targets: dict[str, str]) -> None:
    names: list[str] = []
    for figures in columns.values():
        names += [n for n in figures if n not in names]
    width = max(len(n) for n in names)
    headers = list(columns)
    cells = {n: [_format(columns[h].get(n, "-")) for h in headers] for n in names}
    widths = [max(len(h), *(len(cells[n][i]) for n in names)) for i, h in enumerate(headers)]
    print(f"{'':{width}}  " + "  ".join(f"{h:>{w}}" for h, w in zip(headers, widths)) + "  target")
    for name in names:
        row = "  ".join(f"{c:>{w}}" for c, w in zip(cells[name], widths))
        print(f"{name:{width}}  {row}  {targets.get(name, '')}")


def main(
    measure: Callable[[argparse.Namespace], Figures],
    parser: argparse.ArgumentParser,
    *,
    targets: dict[str, str] | None = None,
    baseline: str = BASELINE_REF,
) -> None:
    """Parse the command line; run ``measure`` here (child) or on both trees (parent)."""
    parser.add_argument("--before", default=baseline, help="baseline commit (default %(default)s)")
    parser.add_argument("--only", choices=("before", "after"), help="run one version only")
    parser.add_argument(_CHILD_FLAG, dest="child_tree", help=argparse.SUPPRESS)
    args, _ = parser.parse_known_args()
    if args.child_tree:
        _check_tree(Path(args.child_tree))
        figures = measure(args)
        print(_RESULT_PREFIX + json.dumps(figures), flush=True)
        return
    script = Path(sys.argv[0]).resolve()
    argv = [a for a in sys.argv[1:]]
    columns: dict[str, Figures] = {}
    trees: dict[str, Path] = {}
    if args.only != "after":
        trees[f"before ({args.before})"] = export_tree(args.before)
    if args.only != "before":
        trees["after (this tree)"] = REPO
    try:
        for label, tree in trees.items():
            print(f"--- {label}", flush=True)
            columns[label] = _run_child(script, tree, argv)
    finally:
        for tree in trees.values():
            if tree != REPO:
                shutil.rmtree(tree, ignore_errors=True)
    print()
    print_table(columns, targets or {})


def module_of_this_tree(relative_path: str) -> Any:
    """A module of *this* tree's ``nb_agent``, whichever version the bench measures: the
    test doubles a bench uses to count (the fake server's prompt-cache simulation) must
    count the same way for both versions."""
    import importlib.util

    path = REPO / relative_path
    spec = importlib.util.spec_from_file_location(f"bench_this_tree_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module
