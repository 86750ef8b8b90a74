"""The engine never imports the Jupyter stack, and nothing imports the Jupyter layer back."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import nb_agent

PACKAGE_DIR = Path(nb_agent.__file__).parent
JUPYTER_DIR = PACKAGE_DIR / "jupyter"
# nbformat is a file-format library (Read uses it for .ipynb files), not the runtime.
FORBIDDEN = ("IPython", "ipywidgets", "ipykernel", "comm", "nbclient", "jupyter_client")


def _engine_modules() -> list[str]:
    names = []
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        if JUPYTER_DIR in path.parents:
            continue
        parts = list(path.relative_to(PACKAGE_DIR.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        names.append(".".join(parts))
    return names


def test_engine_modules_do_not_import_the_jupyter_stack():
    modules = _engine_modules()
    assert "nb_agent.engine" in modules and "nb_agent.loop.query" in modules
    script = f"""
import importlib, json, sys
for name in {modules!r}:
    importlib.import_module(name)
print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] in {FORBIDDEN!r} or m.startswith("nb_agent.jupyter"))))
"""
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    leaked = json.loads(proc.stdout.strip().splitlines()[-1])
    assert leaked == [], f"engine imports pulled in: {leaked}"


EXTENSION_HOOKS = {"load_ipython_extension", "unload_ipython_extension"}
"""``%load_ext nb_agent`` needs these in the package root; they import the Jupyter layer lazily."""


def _walk(node: ast.AST, *, skip_extension_hooks: bool):
    yield node
    for child in ast.iter_child_nodes(node):
        if skip_extension_hooks and isinstance(child, ast.FunctionDef) and child.name in EXTENSION_HOOKS:
            continue
        yield from _walk(child, skip_extension_hooks=skip_extension_hooks)


def _imported_names(tree: ast.AST, module: str) -> list[str]:
    names = []
    package = module.rsplit(".", 1)[0]
    for node in _walk(tree, skip_extension_hooks=module == "nb_agent.__init__"):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            names.append(target)
            names.extend(f"{target}.{alias.name}" for alias in node.names)
    return names


def _engine_imports():
    """(path, imported name) for every import statement outside the Jupyter layer."""
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        if JUPYTER_DIR in path.parents:
            continue
        module = ".".join(path.relative_to(PACKAGE_DIR.parent).with_suffix("").parts)
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for name in _imported_names(tree, module):
            yield path.relative_to(PACKAGE_DIR.parent), name


def test_nothing_outside_the_jupyter_layer_imports_it():
    offenders = [
        f"{path} imports {name}"
        for path, name in _engine_imports()
        if name == "nb_agent.jupyter" or name.startswith("nb_agent.jupyter.")
    ]
    assert offenders == []


def test_no_engine_module_imports_the_jupyter_stack_even_lazily():
    # The subprocess check above sees module-level imports; this one also sees imports
    # inside functions, which would only fail at run time outside a kernel.
    offenders = [f"{path} imports {name}" for path, name in _engine_imports() if name.split(".")[0] in FORBIDDEN]
    assert offenders == []
