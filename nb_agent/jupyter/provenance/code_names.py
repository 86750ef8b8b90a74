"""Which variables a piece of code binds, deletes or changes in place, read from its syntax
(never run), cached by source: a cell's text is parsed once however often it is asked."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import lru_cache

from nb_agent.checkpoints.namespace.code_scan import scan_code

MAX_CACHED = 8192


@dataclass(frozen=True, kw_only=True)
class CodeNames:
    bound: frozenset[str] = frozenset()
    """Names the code binds at the top level (assignment, ``for``, ``with … as``, ``def``,
    ``class``, ``import``): their value comes from this code."""
    changed: frozenset[str] = frozenset()
    """Names whose object the code may change in place (``x[k] =``, ``x += …``, ``inplace=True``)."""
    deleted: frozenset[str] = frozenset()
    star_import: bool = False
    """``from m import *``: any name may come from it."""
    parsed: bool = True
    """False when the code is not Python (then nothing is known of it)."""
    made: frozenset[str] = frozenset()
    """:attr:`bound` and :attr:`changed` together: the names whose value this code made."""


NOTHING = CodeNames(parsed=False)


class _Binder(ast.NodeVisitor):
    def __init__(self) -> None:
        self.bound: set[str] = set()
        self.deleted: set[str] = set()
        self.star = False

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Store):
            self.bound.add(node.id)
        elif isinstance(node.ctx, ast.Del):
            self.deleted.add(node.id)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self.visit(node.value)  # ``x += 1`` changes x (the scan says so); it does not make x anew

    def _definition(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> None:
        self.bound.add(node.name)  # its body's names are its own
        for decorator in node.decorator_list:
            self.visit(decorator)

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = _definition

    def _own_scope(self, node: ast.AST) -> None:
        return None  # a lambda's or a comprehension's names are not the module's

    visit_Lambda = visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _own_scope

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self.bound.add(alias.asname or alias.name.split(".")[0])

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        for alias in node.names:
            if alias.name == "*":
                self.star = True
            else:
                self.bound.add(alias.asname or alias.name)

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        for statement in node.body:  # ``except E as e``: e is gone after the handler
            self.visit(statement)


def bindings(node: ast.AST) -> set[str]:
    """The names ``node`` (a module or one statement) binds at the top level."""
    binder = _Binder()
    binder.visit(node)
    return binder.bound


@lru_cache(maxsize=MAX_CACHED)
def code_names(source: str) -> CodeNames:
    """What ``source`` (Python, after IPython's transformations, without trailing newlines as
    IPython's history keeps it) does to the namespace."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return NOTHING
    binder = _Binder()
    binder.visit(tree)
    changed = scan_code(tree).touched
    return CodeNames(
        bound=frozenset(binder.bound),
        changed=frozenset(changed),
        made=frozenset(binder.bound | changed),
        deleted=frozenset(binder.deleted - binder.bound),
        star_import=binder.star,
    )


@lru_cache(maxsize=MAX_CACHED)
def cell_code_names(source: str) -> CodeNames:
    """:func:`code_names` of a cell as typed (magics and ``!`` commands transformed first)."""
    names = code_names(source.rstrip("\n"))
    if names.parsed:
        return names
    from IPython.core.inputtransformer2 import TransformerManager

    try:
        return code_names(TransformerManager().transform_cell(source))
    except Exception:  # noqa: BLE001 - a cell IPython cannot read either
        return NOTHING
