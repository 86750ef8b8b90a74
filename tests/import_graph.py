"""The import graph of ``nb_agent``, read from the source with :mod:`ast` (nothing is imported).

Shared by ``tests/test_import_cycles.py`` and ``bench/code_shape.py`` (both load it by path:
the test suite runs with ``--import-mode=importlib``). Three views of one list of imports:

- the *package graph*: one node per first-level part of the package (``tools``, ``loop``,
  ``engine`` — a top-level module is its own node — and ``nb_agent`` for the package root),
  an edge for every run-time import between two of them, lazy ones included (an import
  inside a function is still a dependency; ``if TYPE_CHECKING:`` imports are not);
- *lazy imports*: imports inside a function;
- *cycle dodges*: lazy imports of an ``nb_agent`` module that, made module-level, would
  close a module import cycle (the target, when imported, already imports the importer).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT_NODE = "nb_agent"


@dataclass(frozen=True, kw_only=True)
class Import:
    """One imported ``nb_agent`` module (or any module, for ``external`` ones)."""

    source: str
    """The importing module (``nb_agent.tools`` for ``nb_agent/tools/__init__.py``)."""
    target: str
    """The module imported: ``from a import b`` names ``a.b`` when that is a module, else ``a``."""
    path: Path
    line: int
    lazy: bool
    """Inside a function (or a method)."""
    type_only: bool
    """Under ``if TYPE_CHECKING:``: never executed."""


def module_name(path: Path, package_dir: Path) -> str:
    parts = list(path.relative_to(package_dir.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def package_node(module: str) -> str:
    """``nb_agent.tools.bash.parse`` → ``tools``; ``nb_agent.engine`` → ``engine``; the root → ``nb_agent``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ROOT_NODE


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _walk(node: ast.AST, *, lazy: bool, type_only: bool) -> Iterator[tuple[ast.AST, bool, bool]]:
    for child in ast.iter_child_nodes(node):
        yield child, lazy, type_only
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            yield from _walk(child, lazy=True, type_only=type_only)
        elif isinstance(child, ast.If) and _is_type_checking(child.test):
            for stmt in child.body:
                yield stmt, lazy, True
                yield from _walk(stmt, lazy=lazy, type_only=True)
            for stmt in child.orelse:
                yield stmt, lazy, type_only
                yield from _walk(stmt, lazy=lazy, type_only=type_only)
        else:
            yield from _walk(child, lazy=lazy, type_only=type_only)


def _resolve_from(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, node.module] if node.module else base)


def imports_of(path: Path, package_dir: Path, modules: set[str]) -> list[Import]:
    """Every import statement of one file, resolved (``nb_agent`` modules and external ones)."""
    module = module_name(path, package_dir)
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: list[Import] = []
    for node, lazy, type_only in _walk(tree, lazy=False, type_only=False):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _resolve_from(node, module, path.name == "__init__.py")
            submodules = [f"{base}.{alias.name}" for alias in node.names if f"{base}.{alias.name}" in modules]
            # ``from a import b, c``: a is imported, and b or c when they are modules
            targets = submodules if len(submodules) == len(node.names) else [base, *submodules]
        else:
            continue
        for target in dict.fromkeys(targets):
            found.append(Import(source=module, target=target, path=path, line=node.lineno, lazy=lazy, type_only=type_only))
    return found


@dataclass(frozen=True, kw_only=True)
class ImportGraph:
    """All imports of the package under ``package_dir``."""

    package_dir: Path
    modules: frozenset[str]
    imports: tuple[Import, ...]

    @classmethod
    def read(cls, package_dir: Path) -> ImportGraph:
        paths = sorted(p for p in package_dir.rglob("*.py") if "node_modules" not in p.parts)
        modules = {module_name(p, package_dir) for p in paths}
        imports = [i for p in paths for i in imports_of(p, package_dir, modules)]
        return cls(package_dir=package_dir, modules=frozenset(modules), imports=tuple(imports))

    def internal(self, *, include_lazy: bool = True) -> list[Import]:
        """Run-time imports of the package's own modules."""
        root = self.package_dir.name
        return [
            i
            for i in self.imports
            if not i.type_only and (i.target == root or i.target.startswith(root + ".")) and (include_lazy or not i.lazy)
        ]

    # --- the package graph -----------------------------------------------------------------
    def package_edges(self, *, include_lazy: bool = True) -> dict[tuple[str, str], list[Import]]:
        edges: dict[tuple[str, str], list[Import]] = {}
        for imp in self.internal(include_lazy=include_lazy):
            a, b = package_node(imp.source), package_node(imp.target)
            if a != b:
                edges.setdefault((a, b), []).append(imp)
        return edges

    def package_cycles(self, *, include_lazy: bool = True) -> list[list[str]]:
        """The strongly connected groups of packages (each one or more cycles), largest first."""
        edges = self.package_edges(include_lazy=include_lazy)
        return strongly_connected(edges)

    # --- lazy imports ---------------------------------------------------------------------------
    def lazy(self) -> list[Import]:
        return [i for i in self.imports if i.lazy and not i.type_only]

    def _eager_targets(self) -> dict[str, set[str]]:
        """The package modules each module imports at module level (explicit edges)."""
        eager: dict[str, set[str]] = {m: set() for m in self.modules}
        for imp in self.internal(include_lazy=False):
            if imp.target in self.modules and imp.target != imp.source:
                eager[imp.source].add(imp.target)
        return eager

    def _reaches(self, start: str, goal: str, eager: dict[str, set[str]]) -> bool:
        """Does importing ``start`` execute ``goal`` (before ``goal`` has run)? Importing a
        module first runs the ``__init__`` of the packages above it, except those already
        running: the packages above ``goal`` (they run before ``goal`` does) and the root."""
        settled = set(_ancestors(goal)) | {self.package_dir.name}
        seen: set[str] = set()
        todo = [start]
        while todo:
            module = todo.pop()
            nexts = set(eager.get(module, ()))
            nexts.update(a for a in _ancestors(module) if a not in settled and a in self.modules)
            for nxt in nexts - seen:
                if nxt == goal:
                    return True
                seen.add(nxt)
                todo.append(nxt)
        return False

    def cycle_dodges(self) -> list[Import]:
        """Lazy imports of a package module whose target, when imported, already imports the
        importer (so the import, made module-level, would be a module import cycle)."""
        eager = self._eager_targets()
        return [
            i
            for i in self.internal()
            if i.lazy and i.target in self.modules and i.target != i.source and self._reaches(i.target, i.source, eager)
        ]


def _ancestors(module: str) -> list[str]:
    parts = module.split(".")
    return [".".join(parts[:n]) for n in range(1, len(parts))]


def strongly_connected(edges: dict[tuple[str, str], list[Import]]) -> list[list[str]]:
    """Tarjan's algorithm; the groups with more than one node, largest first."""
    graph: dict[str, list[str]] = {}
    for a, b in edges:
        graph.setdefault(a, []).append(b)
        graph.setdefault(b, [])
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph[node]:
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(groups, key=lambda g: (-len(g), g))
