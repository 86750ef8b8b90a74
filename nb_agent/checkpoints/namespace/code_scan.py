"""What a piece of code may change in place, read from its syntax tree (never run).

The scan names the objects worth a snapshot before an ExecuteCode call: receivers of
method calls, targets of subscript and attribute assignment, augmented assignment and
``del x[...]``, objects given ``inplace=True`` or ``out=``, arguments of functions known to
change their arguments, and the globals a user function called by the code reads. Code
the scan cannot see through (``exec``, ``eval``, ``%run``, ``globals()``, the IPython
shell's ``run_*`` methods, ``import __main__``) is *opaque*: then anything may change.

The scan only narrows which objects are copied; it never decides that something did not
change (the comparison after the call does, or says "unknown").
"""

from __future__ import annotations

import ast
import types
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

OPAQUE_CALLS = frozenset({"exec", "eval", "globals", "locals", "vars", "__import__", "execfile", "compile"})
SHELL_RUNNERS = frozenset({"run_line_magic", "run_cell_magic", "run_cell", "ex", "ev", "magic", "push", "del_var", "reset", "run_code", "safe_execfile"})
ARGUMENT_MUTATORS = frozenset(
    {"shuffle", "copyto", "put", "place", "putmask", "fill_diagonal", "heappush", "heappop", "heapify", "heapreplace",
     "heappushpop", "insort", "insort_left", "insort_right", "setattr", "delattr"}
)  # fmt: skip
"""Functions known to change their first argument (``np.random.shuffle(a)``, ``setattr(o, ...)``)."""
MAX_CODE_DEPTH = 3
"""How deep nested code objects of a called user function are read for the globals they use."""


@dataclass(kw_only=True)
class CodeScan:
    """What the code may change in place, by name."""

    touched: set[str] = field(default_factory=set)
    """Assigned into (``x[i] =``, ``x.a =``, ``x += ``, ``del x[i]``), given ``inplace=True`` or
    ``out=``, passed to a mutating function, or reached by a method call on a part of it."""
    methods: dict[str, set[str]] = field(default_factory=dict)
    """``x.method(...)`` called directly on the name: the object's kind says if it mutates."""
    part_methods: dict[str, set[str]] = field(default_factory=dict)
    """``x[k].method(...)``, ``x.reshape(-1).sort()``: a method of a part of (or a view on) x."""
    aliases: dict[str, set[str]] = field(default_factory=dict)
    """``v = x`` or ``v = x[...]``: changing v in place may change x."""
    called: set[str] = field(default_factory=set)
    """Names called as functions (a user function may change the globals it reads)."""
    passed: set[str] = field(default_factory=set)
    """Names given as arguments to a call of a user function."""
    opaque: str | None = None
    """Why the code may change anything (``exec``, ``%run``...), or ``None``."""

    def may_change(self, namespace: Mapping[str, Any]) -> tuple[set[str], str | None]:
        """The names this code may change in place, given what they are bound to now, and
        the reason the code is opaque (then every name may change)."""
        from nb_agent.objects import kind_of

        names = set(self.touched)
        for table, part in ((self.methods, False), (self.part_methods, True)):
            for name, methods in table.items():
                if name not in namespace:
                    continue
                value = namespace[name]
                kind = kind_of(value)
                test = kind.may_mutate_part if part else kind.may_mutate
                if any(test(value, m) for m in methods):
                    names.add(name)
        opaque = self.opaque
        for name in self.called:
            function = namespace.get(name)
            if isinstance(function, types.FunctionType):
                names |= _global_names(function.__code__) & namespace.keys()
                names |= self.passed
                if opaque is None and _code_is_opaque(function.__code__):
                    opaque = f"{name}() runs code that cannot be read (exec, eval, globals())"
        return self._with_aliases(names), opaque

    def _with_aliases(self, names: set[str]) -> set[str]:
        pending = list(names)
        while pending:
            for source in self.aliases.get(pending.pop(), ()):
                if source not in names:
                    names.add(source)
                    pending.append(source)
        return names


def _global_names(code: types.CodeType, depth: int = 0) -> set[str]:
    names = set(code.co_names)
    if depth < MAX_CODE_DEPTH:
        for const in code.co_consts:
            if isinstance(const, types.CodeType):
                names |= _global_names(const, depth + 1)
    return names


def _code_is_opaque(code: types.CodeType) -> bool:
    return bool(_global_names(code) & (OPAQUE_CALLS | {"get_ipython"}))


def root_name(node: ast.AST) -> str | None:
    """The variable an expression starts from: ``df`` for ``df.loc[0, "v"]``,
    ``arr`` for ``arr.reshape(-1)[0]``."""
    while True:
        if isinstance(node, ast.Name):
            return node.id
        if isinstance(node, (ast.Subscript, ast.Attribute, ast.Starred)):
            node = node.value
        elif isinstance(node, ast.Call):
            node = node.func
        else:
            return None


class _Scanner(ast.NodeVisitor):
    def __init__(self) -> None:
        self.scan = CodeScan()

    def _touch(self, node: ast.AST) -> None:
        name = root_name(node)
        if name is not None:
            self.scan.touched.add(name)

    def _target(self, target: ast.AST) -> None:
        if isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                self._target(element)
        elif isinstance(target, (ast.Subscript, ast.Attribute, ast.Starred)):
            self._touch(target)

    def visit_Assign(self, node: ast.Assign) -> None:
        source = root_name(node.value)
        for target in node.targets:
            self._target(target)
            if isinstance(target, ast.Name) and source is not None and source != target.id:
                self.scan.aliases.setdefault(target.id, set()).add(source)
        self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self._target(node.target)
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self._touch(node.target)  # x += y changes a list, array or frame in place
        self.generic_visit(node)

    def visit_Delete(self, node: ast.Delete) -> None:
        for target in node.targets:
            self._target(target)
        self.generic_visit(node)

    def visit_For(self, node: ast.For) -> None:
        self._target(node.target)
        self.generic_visit(node)

    def visit_With(self, node: ast.With) -> None:
        for item in node.items:
            if item.optional_vars is not None:
                self._target(item.optional_vars)
        self.generic_visit(node)

    def visit_Import(self, node: ast.Import) -> None:
        if any(alias.name == "__main__" for alias in node.names):
            self.scan.opaque = "it imports __main__"

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.module == "__main__":
            self.scan.opaque = "it imports from __main__"

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        for keyword in node.keywords:
            inplace = keyword.arg == "inplace" and not (isinstance(keyword.value, ast.Constant) and keyword.value.value is False)
            if inplace and isinstance(func, ast.Attribute):
                self._touch(func.value)
            if keyword.arg == "out":
                self._touch(keyword.value)
        if isinstance(func, ast.Name):
            self._call_of_name(func.id, node)
        elif isinstance(func, ast.Attribute):
            self._method_call(func, node)
        self.generic_visit(node)

    def _call_of_name(self, name: str, node: ast.Call) -> None:
        if name in OPAQUE_CALLS:
            self.scan.opaque = self.scan.opaque or f"it calls {name}()"
        elif name in ARGUMENT_MUTATORS and node.args:
            self._touch(node.args[0])
        self.scan.called.add(name)
        for argument in node.args:
            if (root := root_name(argument)) is not None:
                self.scan.passed.add(root)

    def _method_call(self, func: ast.Attribute, node: ast.Call) -> None:
        receiver = func.value
        if func.attr in SHELL_RUNNERS and _is_shell(receiver):
            self.scan.opaque = self.scan.opaque or "it runs IPython code (a magic such as %run, or the shell)"
        if func.attr in ARGUMENT_MUTATORS and node.args:
            self._touch(node.args[0])
        if isinstance(receiver, ast.Name):
            self.scan.methods.setdefault(receiver.id, set()).add(func.attr)
        elif (root := root_name(receiver)) is not None:  # x["k"].append(), x.reshape(-1).sort()
            self.scan.part_methods.setdefault(root, set()).add(func.attr)


def _is_shell(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "get_ipython" or (
        isinstance(node, ast.Name) and node.id in ("get_ipython", "_ip", "ip", "shell")
    )


def scan_code(tree: ast.AST) -> CodeScan:
    """Scan a parsed module (the code after IPython's transformations)."""
    scanner = _Scanner()
    scanner.visit(tree)
    return scanner.scan
