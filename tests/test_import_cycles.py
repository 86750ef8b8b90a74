"""No package-level import cycle, and no import made lazy only to dodge a module cycle.

The graph is read from the source (``tests/import_graph.py`` says what a node and an edge
are): every run-time import counts, those inside functions too, since a lazy import is
still a dependency. An import under ``if TYPE_CHECKING:`` does not.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import nb_agent

PACKAGE_DIR = Path(nb_agent.__file__).parent


def _load_graph() -> ModuleType:
    # Loaded by path: the test suite runs with --import-mode=importlib (no sibling imports).
    spec = importlib.util.spec_from_file_location("nb_agent_import_graph", Path(__file__).with_name("import_graph.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


GRAPH = _load_graph()


def _describe(edges: dict[tuple[str, str], list], group: list[str]) -> list[str]:
    return [
        f"{a} → {b}: {imps[0].path.relative_to(PACKAGE_DIR.parent)}:{imps[0].line} imports {imps[0].target}"
        for (a, b), imps in sorted(edges.items())
        if a in group and b in group
    ]


def test_no_package_level_import_cycle():
    graph = GRAPH.ImportGraph.read(PACKAGE_DIR)
    assert {"engine", "loop", "tools", "jupyter"} <= {GRAPH.package_node(m) for m in graph.modules}
    edges = graph.package_edges(include_lazy=True)
    assert ("engine", "loop") in edges and ("jupyter", "engine") in edges  # the graph is really read
    cycles = graph.package_cycles(include_lazy=True)
    assert cycles == [], "packages that import each other:\n" + "\n".join(
        line for group in cycles for line in _describe(edges, group)
    )


def test_no_lazy_import_dodges_a_module_cycle():
    dodges = GRAPH.ImportGraph.read(PACKAGE_DIR).cycle_dodges()
    assert dodges == [], "imports made lazy where a module-level import would be a cycle:\n" + "\n".join(
        f"{i.path.relative_to(PACKAGE_DIR.parent)}:{i.line} imports {i.target}" for i in dodges
    )


def _package(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "pkg"
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_the_checks_see_a_lazy_package_cycle_and_a_dodge(tmp_path):
    root = _package(
        tmp_path,
        {
            "__init__.py": "",
            "a/__init__.py": "",
            "a/one.py": "from pkg.b.two import f\n",
            "b/__init__.py": "",
            "b/two.py": "def f():\n    from pkg.a.one import g\n",
            "c/__init__.py": "",
            "c/x.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.a.one import g\n",
        },
    )
    graph = GRAPH.ImportGraph.read(root)
    assert graph.package_cycles(include_lazy=True) == [["a", "b"]]
    assert graph.package_cycles(include_lazy=False) == []
    assert [(i.source, i.target) for i in graph.cycle_dodges()] == [("pkg.b.two", "pkg.a.one")]


def test_a_cycle_through_a_package_init_is_a_dodge_but_a_sibling_in_the_same_package_is_not(tmp_path):
    root = _package(
        tmp_path,
        {
            "__init__.py": "",
            "a/__init__.py": "from pkg.a.one import g\n",
            "a/one.py": "def g():\n    from pkg.a.two import h\n    from pkg.b.three import k\n",
            "a/two.py": "",
            "b/__init__.py": "",
            "b/three.py": "from pkg.a import g\n",
        },
    )
    dodges = [(i.source, i.target) for i in GRAPH.ImportGraph.read(root).cycle_dodges()]
    # pkg.a.two's package runs before pkg.a.one does; pkg.b.three imports pkg.a, whose
    # __init__ imports pkg.a.one: that one would be a cycle.
    assert dodges == [("pkg.a.one", "pkg.b.three")]
