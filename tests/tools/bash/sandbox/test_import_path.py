"""A sandboxed command cannot put code on the kernel's import path (issue 21 §2): with a
classifier that calls everything read-only (nothing asks), writes of modules, packages,
``__pycache__`` and ``.pth`` files into the kernel's working directory are refused or
undone when the command exits, while ordinary files are written as before."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from nb_agent import import_guard

from .test_wrong_classifier_e2e import run_commands

pytestmark = pytest.mark.usefixtures("needs_sandbox")


def _write(relative: str, content: str = "x = 1") -> str:
    """A program writing the file, the path assembled at run time (no literal to check)."""
    parts = ", ".join(repr(p) for p in relative.split("/"))
    code = f"import os; p = os.path.join({parts}); os.makedirs(os.path.dirname(p) or '.', exist_ok=True); open(p, 'w').write({content!r})"
    return f'python3 -c "{code}"'


def _leftovers(project: Path) -> list[str]:
    return sorted(p.name for p in project.iterdir() if "sandbox-blocked" in p.name)


async def test_new_modules_packages_and_caches_are_undone(project: Path, home: Path) -> None:
    (project / "lib").mkdir()
    (project / "lib" / "data.txt").write_text("kept\n")
    # Written by a program, not a redirection: the shell guard cannot see these paths, only the sandbox can stop them.
    commands = [
        _write("nbformat.py", "import os"),
        _write("pandas/__init__.py"),
        _write("helpers.py"),
        _write("evil.pth", "import os"),
        _write("lib/__init__.py"),
        _write("__pycache__/utils.cpython-311.pyc", "junk"),
        _write("google/auth/__init__.py"),  # a portion of an installed namespace package
        _write("data.csv", "1,2") + " && " + _write("notes/todo.py"),  # ordinary files stay
    ]
    outcomes = await run_commands(project, home, commands)
    for name in ("nbformat.py", "pandas", "helpers.py", "evil.pth", "__pycache__", "google"):
        assert not (project / name).exists(), (name, outcomes)
    assert not (project / "lib" / "__init__.py").exists() and (project / "lib" / "data.txt").read_text() == "kept\n"
    assert (project / "data.csv").exists() and (project / "notes" / "todo.py").exists()
    assert "which the kernel would import" in outcomes[0][0], outcomes[0]
    assert len(_leftovers(project)) == 5  # moved aside, not lost (the cache is simply removed)


async def test_existing_modules_are_read_only(project: Path, home: Path) -> None:
    (project / "utils.py").write_text("VALUE = 1\n")
    (project / "mypkg").mkdir()
    (project / "mypkg" / "__init__.py").write_text("")
    (project / "mypkg" / "core.py").write_text("VALUE = 1\n")
    outcomes = await run_commands(
        project, home,
        [
            _write("utils.py", "VALUE = 2"),
            "python3 -c \"import os; open('t', 'w').write('VALUE = 2'); os.replace('t', 'utils' + '.py')\"",  # as sed -i does
            _write("mypkg/core.py", "VALUE = 2"),
            "python3 -c \"import os; os.remove('utils' + '.py')\"",
        ],
    )  # fmt: skip
    assert (project / "utils.py").read_text() == "VALUE = 1\n"
    assert (project / "mypkg" / "core.py").read_text() == "VALUE = 1\n"
    assert all(error for _, error in outcomes), outcomes
    assert "Read-only file system" in outcomes[0][0] and "busy" in outcomes[3][0], outcomes


async def test_python_directories_inside_the_project_are_read_only(
    project: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A virtual environment in the project: its site-packages is the kernel's own."""
    site = project / ".venv" / "lib" / "python3" / "site-packages"
    (site / "anthropic").mkdir(parents=True)
    (site / "anthropic" / "__init__.py").write_text("")
    guard = import_guard.install()
    monkeypatch.setattr(guard, "_installation", (*guard._installation, str(site)))
    monkeypatch.setattr(sys, "path", [*sys.path, str(site)])
    outcomes = await run_commands(
        project, home, [_write(".venv/lib/python3/site-packages/anthropic/_client.py"), _write(".venv/lib/python3/site-packages/evil.pth")]
    )
    assert not (site / "anthropic" / "_client.py").exists() and not (site / "evil.pth").exists()
    assert all(error and "Read-only file system" in text for text, error in outcomes), outcomes
