"""Modules planted in the kernel's folder never run for nb_agent (:mod:`nb_agent.import_guard`).

Each test runs a fresh interpreter in a folder holding planted modules, with ``sys.path`` as
a kernel has it (``''`` just before site-packages), and checks the marker files the planted
code would leave. A planted module imitates a real attack: it records that it ran, then
loads the real module in its place, so nothing visibly breaks.
"""

from __future__ import annotations

import json
import py_compile
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

KERNEL_PATH = """
import sys
# As IPython's InteractiveShellApp.init_path does: '' just before the first site-packages.
index = next((i for i, p in enumerate(sys.path) if p.endswith(("site-packages", "dist-packages"))), 0)
sys.path.insert(index, "")
"""


def _stealthy(name: str, marks: Path) -> str:
    """A module that records its import, then quietly becomes the real one."""
    return textwrap.dedent(f"""
        import importlib, os, sys
        with open({str(marks)!r}, "a") as f:
            f.write({name!r} + "\\n")
        del sys.modules[__name__]
        saved = sys.path[:]
        sys.path[:] = [p for p in sys.path if p not in ("", os.getcwd())]
        try:
            real = importlib.import_module(__name__)
        finally:
            sys.path[:] = saved
        sys.modules[__name__] = real
    """)


def _plant(folder: Path, marks: Path, names: list[str], *, as_package: tuple[str, ...] = ()) -> None:
    for name in names:
        if name in as_package:
            (folder / name).mkdir()
            (folder / name / "__init__.py").write_text(_stealthy(name, marks))
        else:
            (folder / f"{name}.py").write_text(_stealthy(name, marks))


def _run(folder: Path, code: str) -> subprocess.CompletedProcess[str]:
    script = KERNEL_PATH + textwrap.dedent(code)
    return subprocess.run([sys.executable, "-c", script], cwd=folder, capture_output=True, text=True, timeout=120)


def _fired(marks: Path) -> list[str]:
    return marks.read_text().split() if marks.exists() else []


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    path = tmp_path / "cloned"
    path.mkdir()
    return path


@pytest.fixture
def marks(tmp_path: Path) -> Path:
    return tmp_path / "fired.txt"


DEPENDENCIES = ["anthropic", "pydantic", "yaml", "nbformat", "markdown_it", "tree_sitter", "tree_sitter_bash", "ipywidgets",
                "html2text", "jsonschema", "httpx", "pygit2", "jiter", "mcp"]  # fmt: skip


def test_nb_agents_lazy_imports_never_come_from_the_folder(folder, marks):
    _plant(folder, marks, DEPENDENCIES, as_package=("yaml", "markdown_it"))
    done = _run(folder, f"""
        import nb_agent, importlib
        from nb_agent.jupyter import extension  # what %load_ext imports
        from nb_agent.agent import builtin_tools
        builtin_tools()
        for name in {DEPENDENCIES!r}:
            module = importlib.import_module(name)  # from here: not an nb_agent frame, checked below
        from nb_agent.jupyter.html import markdown
        markdown("*hi*")
        print("ok")
    """)
    assert done.returncode == 0, done.stderr
    assert _fired(marks) == []


def test_lazy_imports_inside_nb_agent_functions_are_guarded(folder, marks):
    """The imports nb_agent makes in functions, long after ``%load_ext`` (Read of a
    notebook, WebFetch's conversion, the Bash parser), each a planted file here."""
    _plant(folder, marks, ["nbformat", "html2text", "tree_sitter", "tree_sitter_bash", "markdown_it"])
    done = _run(folder, """
        import nb_agent
        from nb_agent.shell.parse import parse_command
        parse_command("ls -la | wc -l")
        from nb_agent.tools.web.convert import html_to_markdown
        html_to_markdown("<p>hi</p>")
        import json
        from nb_agent.tools.files.notebook_view import parse_notebook
        parse_notebook(json.dumps({"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
        from nb_agent.jupyter.html import markdown
        markdown("*hi*")
        print("ok")
    """)
    assert done.returncode == 0, done.stderr
    assert _fired(marks) == []


def test_a_users_import_of_an_installed_name_gets_the_installed_module(folder, marks):
    """The user's own cell (a ``__main__`` frame) importing a dependency of nb_agent:
    otherwise nb_agent would find the planted module already in ``sys.modules``."""
    _plant(folder, marks, ["nbformat", "yaml"], as_package=("yaml",))
    (folder / "helpers.py").write_text("VALUE = 42\n")
    done = _run(folder, """
        import nb_agent
        import nbformat, yaml
        import helpers  # a module of the folder with a name of its own still imports
        print(helpers.VALUE, nbformat.__file__)
    """)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("42 ") and str(folder) not in done.stdout
    assert _fired(marks) == []


def test_a_kernel_that_changes_folder_distrusts_the_new_one(folder, marks, tmp_path):
    """``%cd`` after ``%load_ext``: the guard's untrusted roots follow the working directory
    (they are remembered per ``os.getcwd()``), so the new folder's planted files stay out,
    also through an entry naming it."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    _plant(elsewhere, marks, ["nbformat", "yaml"], as_package=("yaml",))
    done = _run(folder, f"""
        import os
        import nb_agent
        import json, html  # imports made with the first folder as the working directory
        os.chdir({str(elsewhere)!r})
        sys.path.insert(0, os.getcwd())  # the folder by name, as code that adds it does
        import nbformat, yaml
        from nb_agent.tools.files.notebook_view import parse_notebook
        print(nbformat.__file__)
    """)
    assert done.returncode == 0, done.stderr
    assert str(elsewhere) not in done.stdout
    assert _fired(marks) == []


def test_an_optional_import_nb_agent_makes_fails_instead_of_loading_the_folders_file(folder, marks):
    """httpx tries ``brotli`` and ``zstandard``; nb_agent tries ``PIL``: where they are not
    installed, a file of that name in the folder must not stand in for them."""
    _plant(folder, marks, ["brotli", "zstandard", "brotlicffi", "h2", "socksio"])
    (folder / "PIL").mkdir()
    (folder / "PIL" / "__init__.py").write_text(f"open({str(marks)!r}, 'a').write('PIL\\n')\n")
    (folder / "PIL" / "Image.py").write_text(f"open({str(marks)!r}, 'a').write('PIL.Image\\n')\n")
    done = _run(folder, """
        import nb_agent, httpx
        from nb_agent.tools.files.media import _shrink_image
        try:
            _shrink_image(b"not an image")  # imports PIL
        except Exception:
            pass
        import importlib
        for name in ("brotli", "zstandard", "brotlicffi", "h2", "socksio"):
            try:
                importlib.import_module(name)
            except ImportError:
                pass
        print("ok")
    """)
    assert done.returncode == 0, done.stderr
    fired = set(_fired(marks)) - {"brotli", "zstandard", "brotlicffi", "h2", "socksio"}
    assert fired == set(), fired  # those five were imported by this script's own frame, as a user cell would


def test_refused_import_is_a_module_not_found_error_naming_the_folder(folder):
    (folder / "not_installed_anywhere.py").write_text("raise SystemExit('ran')\n")
    done = _run(folder, """
        import nb_agent.import_guard as g
        from nb_agent.errors import UnsafeImportError
        # a function of an nb_agent module (its globals' __name__ says so) importing the name
        code = compile("def f():\\n    import not_installed_anywhere\\n", "nb_agent/fake.py", "exec")
        ns = {"__name__": "nb_agent.fake"}
        exec(code, ns)
        try:
            ns["f"]()
        except UnsafeImportError as e:
            print("refused", isinstance(e, ModuleNotFoundError), e.name)
        import not_installed_anywhere
    """)
    assert "refused True not_installed_anywhere" in done.stdout, done.stderr
    assert done.returncode != 0 and "ran" in done.stderr  # the user's own import still works (it ran the file)


@pytest.mark.parametrize("spelling", ["pyc", "package-pyc", "relative-entry", "distrusted-directory", "namespace-portion"])
def test_variants_of_where_a_module_can_be_planted(folder, marks, tmp_path, spelling):
    code = "import nb_agent, nb_agent.import_guard as g\n"
    if spelling == "pyc":  # a sourceless module
        source = folder / "src_html2text.py"
        source.write_text(_stealthy("html2text", marks))
        py_compile.compile(str(source), cfile=str(folder / "html2text.pyc"))
        source.unlink()
    elif spelling == "package-pyc":
        (folder / "nbformat").mkdir()
        source = folder / "init_src.py"
        source.write_text(_stealthy("nbformat", marks))
        py_compile.compile(str(source), cfile=str(folder / "nbformat" / "__init__.pyc"))
        source.unlink()
    elif spelling == "relative-entry":  # sys.path.append("lib") in a notebook: relative to the cwd
        (folder / "lib").mkdir()
        _plant(folder / "lib", marks, ["html2text"])
        code += "import sys\nsys.path.insert(0, 'lib')\n"
    elif spelling == "distrusted-directory":  # an additional working directory on sys.path
        extra = tmp_path / "extra"
        extra.mkdir()
        _plant(extra, marks, ["html2text"])
        code += f"import sys\nsys.path.insert(0, {str(extra)!r})\ng.distrust([{str(extra)!r}])\n"
    elif spelling == "namespace-portion":  # google is an installed namespace package
        (folder / "google" / "auth").mkdir(parents=True)
        (folder / "google" / "auth" / "__init__.py").write_text(_stealthy("google.auth", marks))
        code += "import google\n"
    code += textwrap.dedent("""
        from nb_agent.tools.web.convert import html_to_markdown
        html_to_markdown("<p>x</p>")
        import importlib
        def as_nb_agent(name):
            ns = {"__name__": "nb_agent.fake", "importlib": importlib}
            exec(compile(f"def f():\\n    return importlib.import_module({name!r})\\n", "nb_agent/fake.py", "exec"), ns)
            return ns["f"]()
        as_nb_agent("nbformat")
        try:
            as_nb_agent("google.auth")
        except ImportError:
            pass
        print("ok")
    """)
    done = _run(folder, code)
    assert done.returncode == 0, done.stderr
    assert _fired(marks) == []


def test_modules_planted_before_the_guard_are_reported(folder, marks):
    (folder / "html2text.py").write_text("PLANTED = True\n")  # (a stealthy one that swaps itself out is not seen)
    done = _run(folder, """
        import html2text  # the user imported it before nb_agent was loaded
        import nb_agent.import_guard as g, json
        print(json.dumps(g.planted_modules()))
    """)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert len(found) == 1 and found[0].startswith("html2text (") and str(folder) in found[0]


def test_a_virtual_environment_inside_the_project_is_still_the_environment(tmp_path):
    """Python's own directories are trusted even under the working directory (writes to
    them always ask; the sandbox keeps them read-only)."""
    import site

    import nb_agent.import_guard as g

    guard = g.ImportGuard()
    for directory in site.getsitepackages():
        assert not guard.is_untrusted_location(directory, roots=("/",))
    assert guard.is_untrusted_location(str(tmp_path / "x.py"), roots=(str(tmp_path),))
