"""Names a notebook uses before it defines them, read top to bottom (never run).

Each code cell is read statement by statement: the names a statement reads (at the module
level: a function's or a lambda's body runs later, a comprehension's own variables are its
own) are checked against what the cells above and the statements before it bound, then
the statement's own bindings are added. A name read before any cell binds it is either
bound by a cell below (the notebook only works when run out of order) or by no cell at all
(it exists only in a kernel that ran code since deleted: hidden state). A ``%%time``-like
cell is read as its body; code that binds names its text does not show (``%run``, ``exec``,
a star import) ends the reading: any name may come from it.
"""

from __future__ import annotations

import ast
import builtins
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from nb_agent.jupyter.provenance.code_names import bindings, cell_code_names

KNOWN = frozenset(dir(builtins)) | {"get_ipython", "display", "In", "Out", "exit", "quit", "__name__", "__file__", "__builtins__"}
"""Names a fresh IPython kernel has before any cell runs."""


@dataclass(frozen=True, kw_only=True)
class EarlyUse:
    name: str
    position: int
    """1-based position of the cell that reads it."""
    cell_id: str
    defined_at: tuple[int, str] | None
    """The first cell below that binds it (position, id), or ``None``: no cell does."""


class _Reads(ast.NodeVisitor):
    """The names an expression (or a simple statement) reads at the module level."""

    def __init__(self) -> None:
        self.names: list[str] = []

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Load):
            self.names.append(node.id)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        if isinstance(node.target, ast.Name):
            self.names.append(node.target.id)  # ``x += 1`` reads x first
        else:
            self.visit(node.target)
        self.visit(node.value)

    def visit_Lambda(self, node: ast.Lambda) -> None:
        for default in [*node.args.defaults, *(d for d in node.args.kw_defaults if d is not None)]:
            self.visit(default)

    def _comprehension(self, node: ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp) -> None:
        inner = _Reads()
        own: set[str] = set()
        for generator in node.generators:
            inner.visit(generator.iter)
            own |= {n.id for n in ast.walk(generator.target) if isinstance(n, ast.Name)}
            for condition in generator.ifs:
                inner.visit(condition)
        for part in (node.key, node.value) if isinstance(node, ast.DictComp) else (node.elt,):
            inner.visit(part)
        self.names += [name for name in inner.names if name not in own]

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _comprehension


def _reads(*nodes: ast.AST | None) -> list[str]:
    reader = _Reads()
    for node in nodes:
        if node is not None:
            reader.visit(node)
    return reader.names


class _CellReader:
    """Walks one cell's statements in order against the names bound so far."""

    def __init__(self, bound: set[str]) -> None:
        self.bound = bound
        self.early: list[str] = []

    def _check(self, names: Iterable[str]) -> None:
        for name in names:
            if name not in self.bound and name not in KNOWN and not name.startswith("_") and name not in self.early:
                self.early.append(name)

    def _bind_targets(self, *targets: ast.AST | None) -> None:
        for target in targets:
            if target is not None:
                self.bound |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}

    def statements(self, body: Sequence[ast.stmt]) -> None:
        for statement in body:
            self.statement(statement)

    def statement(self, node: ast.stmt) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            args = node.args
            self._check(_reads(*node.decorator_list, *args.defaults, *(d for d in args.kw_defaults if d is not None)))
            self.bound.add(node.name)
        elif isinstance(node, ast.ClassDef):
            self._check(_reads(*node.decorator_list, *node.bases, *(k.value for k in node.keywords)))
            self.bound.add(node.name)
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            self._check(_reads(node.iter))
            self._bind_targets(node.target)
            self.statements(node.body)
            self.statements(node.orelse)
        elif isinstance(node, (ast.While, ast.If)):
            self._check(_reads(node.test))
            self.statements(node.body)
            self.statements(node.orelse)
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                self._check(_reads(item.context_expr))
                self._bind_targets(item.optional_vars)
            self.statements(node.body)
        elif isinstance(node, ast.Try) or type(node).__name__ == "TryStar":
            self.statements(node.body)  # type: ignore[attr-defined]
            for handler in node.handlers:  # type: ignore[attr-defined]
                self._check(_reads(handler.type))
                if handler.name:
                    self.bound.add(handler.name)
                self.statements(handler.body)
            self.statements(node.orelse)  # type: ignore[attr-defined]
            self.statements(node.finalbody)  # type: ignore[attr-defined]
        else:
            self._check(_reads(node))
            self.bound |= bindings(node)


PYTHON_BODY_MAGICS = frozenset({"time", "timeit", "prun", "capture"})
"""Cell magics whose body is the cell's Python, run in the namespace (``%%time``)."""
UNSEEN_BINDINGS = re.compile(r"^[ \t]*%(?:run|store)\b|\b(?:exec|globals|vars|locals)\s*\(", re.MULTILINE)
"""Code that binds names its text does not show (``%run``, ``%store -r``, ``exec``,
``globals()[...] =``)."""


def _cell_python(source: str) -> str:
    """The Python a cell runs in the namespace: a ``%%time``-like cell's body."""
    first, _, body = source.lstrip().partition("\n")
    words = first[2:].split() if first.startswith("%%") else []
    return _cell_python(body) if words and words[0] in PYTHON_BODY_MAGICS else source


def names_used_early(cells: Sequence[tuple[int, str, str]], *, limit: int = 50) -> list[EarlyUse]:
    """``cells``: (position, id, source) of the code cells to run, in order. The first
    ``limit`` names read before the cells above (and the cell's earlier statements) bind them."""
    sources = [(position, cell_id, _cell_python(source)) for position, cell_id, source in cells]
    trees: list[tuple[int, str, ast.Module | None]] = []
    for position, cell_id, source in sources:
        names = cell_code_names(source)
        if names.star_import or UNSEEN_BINDINGS.search(source):  # any name may come from it: nothing can be said
            return []
        trees.append((position, cell_id, _parse(source) if names.parsed else None))
    binders: dict[str, tuple[int, str]] = {}
    for position, cell_id, source in sources:
        for name in cell_code_names(source).bound:
            binders.setdefault(name, (position, cell_id))
    bound: set[str] = set()
    found: list[EarlyUse] = []
    for position, cell_id, tree in trees:
        if tree is None:
            continue
        reader = _CellReader(bound)
        reader.statements(tree.body)
        bound = reader.bound
        for name in reader.early:
            later = binders.get(name)
            defined_at = later if later is not None and later[0] >= position else None
            found.append(EarlyUse(name=name, position=position, cell_id=cell_id, defined_at=defined_at))
            if len(found) >= limit:
                return found
    return found


def _parse(source: str) -> ast.Module | None:
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError):
        pass
    from IPython.core.inputtransformer2 import TransformerManager

    try:
        return ast.parse(TransformerManager().transform_cell(source))
    except Exception:  # noqa: BLE001 - not Python even after IPython's transformations
        return None
