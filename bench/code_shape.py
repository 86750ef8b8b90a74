"""Print the shape of the ``nb_agent`` source: import cycles, lazy imports, sizes, loose types.

Usage: python bench/code_shape.py [--list]

Read from the source with :mod:`ast` and :mod:`tokenize` (nothing is imported), so it
runs on any commit: ``git worktree add /tmp/x COMMIT && python bench/code_shape.py --root /tmp/x``.
Figures:

- package-level import cycles: groups of first-level packages that import each other
  (``tests/import_graph.py`` says what a node and an edge are), counting every run-time
  import, then module-level imports only;
- lazy imports (inside functions), those of ``nb_agent`` modules, and the cycle dodges
  among them (made module-level, they would be a module import cycle);
- the largest class (lines, methods), the count of ``Any`` in the code, ``noqa`` and
  ``type: ignore`` comments, modules over 600 lines, functions over 80 lines.

``--list`` also lists the cycle edges, the dodges and the long modules and functions.
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import io
import sys
import tokenize
from pathlib import Path
from types import ModuleType

HERE = Path(__file__).resolve().parents[1]
LONG_MODULE = 600
LONG_FUNCTION = 80


def load_import_graph(root: Path) -> ModuleType:
    """``tests/import_graph.py`` of this checkout (by path: the tests are not a package)."""
    path = HERE / "tests" / "import_graph.py"
    spec = importlib.util.spec_from_file_location("nb_agent_import_graph", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def comments(source: str) -> list[str]:
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    return [t.string for t in tokens if t.type == tokenize.COMMENT]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=HERE, help="the checkout to measure (default: this one)")
    parser.add_argument("--list", action="store_true", help="list cycle edges, dodges, long modules and functions")
    args = parser.parse_args()
    package_dir = args.root / "nb_agent"
    graph_module = load_import_graph(args.root)
    graph = graph_module.ImportGraph.read(package_dir)

    cycles_all = graph.package_cycles(include_lazy=True)
    cycles_eager = graph.package_cycles(include_lazy=False)
    lazy = graph.lazy()
    root = package_dir.name
    lazy_internal = [i for i in lazy if i.target == root or i.target.startswith(root + ".")]
    dodges = graph.cycle_dodges()
    edges = graph.package_edges(include_lazy=True)
    in_cycle = {n for group in cycles_all for n in group}
    cycle_edges = {
        (a, b): imps for (a, b), imps in edges.items() if a in in_cycle and b in in_cycle and any(a in g and b in g for g in cycles_all)
    }
    lazy_cycle_edges = [i for imps in cycle_edges.values() for i in imps if i.lazy]

    largest: tuple[int, int, str] = (0, 0, "")
    any_count = noqa = type_ignore = 0
    long_modules: list[tuple[int, str]] = []
    long_functions: list[tuple[int, str]] = []
    paths = sorted(p for p in package_dir.rglob("*.py"))
    for path in paths:
        source = path.read_text(encoding="utf-8")
        rel = path.relative_to(args.root)
        lines = source.count("\n") + (0 if source.endswith("\n") else 1)
        if lines > LONG_MODULE:
            long_modules.append((lines, str(rel)))
        for text in comments(source):
            noqa += "noqa" in text
            type_ignore += "type: ignore" in text
        tree = ast.parse(source, filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and node.id == "Any":
                any_count += 1
            elif isinstance(node, ast.Attribute) and node.attr == "Any":
                any_count += 1
            elif isinstance(node, ast.ClassDef):
                size = node.end_lineno - node.lineno + 1  # type: ignore[operator]
                methods = sum(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) for n in node.body)
                largest = max(largest, (size, methods, f"{rel}:{node.lineno} {node.name}"))
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                size = node.end_lineno - node.lineno + 1  # type: ignore[operator]
                if size > LONG_FUNCTION:
                    long_functions.append((size, f"{rel}:{node.lineno} {node.name}"))

    print(f"modules: {len(paths)} files, {len(graph.modules)} modules")
    print(f"package-level import cycles (all run-time imports): {len(cycles_all)} groups: " + "; ".join(" ".join(g) for g in cycles_all))
    print(f"package-level import cycles (module-level imports only): {len(cycles_eager)} groups: " + "; ".join(" ".join(g) for g in cycles_eager))
    print(f"package edges inside a cycle group: {len(cycle_edges)} ({len(lazy_cycle_edges)} lazy imports among them)")
    print(f"lazy imports (inside functions): {len(lazy)}, of nb_agent modules: {len(lazy_internal)}")
    print(f"lazy imports that dodge a module import cycle: {len(dodges)}")
    print(f"largest class: {largest[2]}: {largest[0]} lines, {largest[1]} methods")
    print(f"Any in nb_agent/: {any_count}")
    print(f"noqa comments: {noqa}; type: ignore comments: {type_ignore}")
    print(f"modules over {LONG_MODULE} lines: {len(long_modules)}; functions over {LONG_FUNCTION} lines: {len(long_functions)}")
    if args.list:
        print("\ncycle edges (package → package: first import):")
        for (a, b), imps in sorted(cycle_edges.items()):
            first = imps[0]
            kind = "lazy" if first.lazy else "module-level"
            print(f"  {a} → {b}: {len(imps)} imports, e.g. {first.path.relative_to(args.root)}:{first.line} {first.target} ({kind})")
        print("\ncycle dodges:")
        for imp in dodges:
            print(f"  {imp.path.relative_to(args.root)}:{imp.line} {imp.target}")
        print("\nlong modules:")
        for size, name in sorted(long_modules, reverse=True):
            print(f"  {size:5} {name}")
        print("\nlong functions:")
        for size, name in sorted(long_functions, reverse=True):
            print(f"  {size:5} {name}")


if __name__ == "__main__":
    main()
