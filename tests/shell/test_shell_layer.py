"""``nb_agent.shell`` is pure analysis below tools and permissions: it imports neither."""

from __future__ import annotations

import ast
from pathlib import Path

import nb_agent.shell

SHELL_DIR = Path(nb_agent.shell.__file__).parent
ABOVE = ("nb_agent.tools", "nb_agent.permissions", "nb_agent.jupyter", "nb_agent.engine", "nb_agent.loop")


def _imports(path: Path) -> list[str]:
    names: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.append(node.module)
    return names


def test_the_shell_package_imports_nothing_above_it():
    modules = sorted(SHELL_DIR.rglob("*.py"))
    assert len(modules) > 10
    offending = [
        f"{path.relative_to(SHELL_DIR)}: {name}"
        for path in modules
        for name in _imports(path)
        if any(name == above or name.startswith(above + ".") for above in ABOVE)
    ]
    assert offending == []
