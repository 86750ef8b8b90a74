"""Markup is made in one place: no module of the Jupyter layer but ``nb_agent/jupyter/html.py``
writes a tag in a string, and no module of the package escapes by hand or wraps text as
markup; the page's extension never parses markup either.

Tags are looked for in ``nb_agent/jupyter`` only: the engine cannot display anything (it
never imports IPython, ``tests/test_layering.py``), and its ``<summary>``, ``<env>`` or
``<tool_use_error>`` are text for the model, which reaches a page only through the layer."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import nb_agent
from nb_agent.jupyter import html as layer

PACKAGE = Path(nb_agent.__file__).parent
LAYER = Path(layer.__file__)
EXTENSION_SOURCES = PACKAGE.parent / "labextension" / "src"

CHECKED_TAGS = sorted(layer.TAGS | {"script", "style", "iframe", "svg", "object", "embed", "form", "input", "button", "link", "meta", "body", "html", "textarea", "video", "audio", "source", "math"})
TAG = re.compile(r"<\s*/?\s*(" + "|".join(CHECKED_TAGS) + r")(?=[\s>/]|$)", re.IGNORECASE)
ENTITY = re.compile(r"&(?:[a-z]+|#\d+|#x[0-9a-f]+);", re.IGNORECASE)
JUPYTER = PACKAGE / "jupyter"
FORBIDDEN_NAMES = {"escape", "Markup", "markupsafe", "unescape"}


def _offences(path: Path, *, tags: bool = True) -> list[str]:
    relative = path.relative_to(PACKAGE).as_posix()
    tree = ast.parse(path.read_text(), filename=str(path))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)
    }  # fmt: skip
    found = []
    for node in ast.walk(tree):
        if tags and isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            for match in TAG.finditer(node.value):
                found.append(f"{relative}:{node.lineno}: tag {match.group(0)!r} in a string")
            if ENTITY.search(node.value):
                found.append(f"{relative}:{node.lineno}: HTML entity in a string")
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            modules = [node.module or ""] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]
            names = {a.name for a in node.names}
            if any(m in ("html", "markupsafe") or m.startswith(("html.", "markupsafe.")) for m in modules) or (
                isinstance(node, ast.ImportFrom) and node.module == "markupsafe"
            ):
                found.append(f"{relative}:{node.lineno}: imports {modules[0]} (make markup with nb_agent.jupyter.html)")
            if isinstance(node, ast.ImportFrom) and node.module == "nb_agent.jupyter.html" and names & FORBIDDEN_NAMES:
                found.append(f"{relative}:{node.lineno}: imports {sorted(names & FORBIDDEN_NAMES)} from the layer")
        elif isinstance(node, ast.Call) and isinstance(node.func, (ast.Name, ast.Attribute)):
            called = node.func.id if isinstance(node.func, ast.Name) else node.func.attr
            if called in {"Markup", "Html"}:
                found.append(f"{relative}:{node.lineno}: wraps a string as markup ({called}(...))")
    return found


def test_no_module_but_the_layer_makes_markup():
    offences = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path != LAYER:
            offences += _offences(path, tags=JUPYTER in path.parents)
    assert offences == [], "\n".join(offences)


def test_the_check_finds_what_it_looks_for(tmp_path):
    """The scan is not blind: each kind of offence in a planted module is reported."""
    planted = PACKAGE / "jupyter" / "_planted_for_the_html_check.py"
    planted.write_text(
        "import html\n"
        "from markupsafe import Markup\n"
        "from nb_agent.jupyter.html import Html\n"
        "def card(name):\n"
        "    '''<div> in a docstring is prose.'''\n"
        "    return f'<div class=\"x\">{html.escape(name)}&nbsp;</div>' + Markup('<b>') + Html(name)\n"
    )
    try:
        offences = _offences(planted)
    finally:
        planted.unlink()
    text = "\n".join(offences)
    assert "imports html" in text and "imports markupsafe" in text
    assert "tag '<div'" in text and "tag '</div'" in text and "HTML entity" in text
    assert "Markup(...)" in text and "Html(...)" in text
    assert "docstring" not in text and len([o for o in offences if "'<div'" in o]) == 1


def test_the_extension_never_parses_markup():
    sinks = re.compile(r"\.(innerHTML|outerHTML)\s*=|insertAdjacentHTML|document\.write|dangerouslySetInnerHTML|\.setAttribute\(\s*['\"]on", re.IGNORECASE)
    sources = sorted(EXTENSION_SOURCES.glob("*.ts"))
    assert sources, EXTENSION_SOURCES
    offences = [f"{p.name}:{n}: {line.strip()}" for p in sources for n, line in enumerate(p.read_text().splitlines(), 1) if sinks.search(line)]
    assert offences == [], "\n".join(offences)
