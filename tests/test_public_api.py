"""The curated public API: ``from nb_agent import create_engine, QueryEngine, Tool, ...``."""

from __future__ import annotations

import ast
import importlib
import re
import subprocess
import sys
from pathlib import Path

import pytest

import nb_agent

ROOT = Path(nb_agent.__file__).resolve().parent.parent
PUBLIC = nb_agent._PUBLIC


@pytest.mark.parametrize("name", sorted(PUBLIC))
def test_each_public_name_is_the_object_its_module_defines(name: str):
    assert getattr(nb_agent, name) is getattr(importlib.import_module(PUBLIC[name]), name)
    assert name in nb_agent.__all__ and name in dir(nb_agent)


def test_an_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'create_enigne'"):
        nb_agent.create_enigne  # noqa: B018 - the look-up is the test


def test_type_checkers_see_the_same_names_as_run_time():
    tree = ast.parse((ROOT / "nb_agent" / "__init__.py").read_text(encoding="utf-8"))
    seen: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            for stmt in node.body:
                assert isinstance(stmt, ast.ImportFrom) and stmt.module is not None
                for alias in stmt.names:
                    assert alias.asname == alias.name, "re-exported as itself, so type checkers export it"
                    seen[alias.name] = stmt.module
    assert seen == PUBLIC


def test_importing_the_package_imports_no_engine_until_a_name_is_used():
    code = (
        "import sys, nb_agent\n"
        "print(sorted(m for m in ('nb_agent.engine', 'nb_agent.agent', 'nb_agent.tools.base') if m in sys.modules))\n"
        "from nb_agent import create_engine\n"
        "print('nb_agent.engine' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT).stdout
    assert out.splitlines() == ["[]", "True"]


def test_the_readme_documents_every_public_name():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Using the engine from Python", 1)[1].split("\n## ", 1)[0]
    missing = [name for name in PUBLIC if not re.search(rf"`{re.escape(name)}`", section)]
    assert missing == [], f"README's 'Using the engine from Python' does not name: {missing}"
