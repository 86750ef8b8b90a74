"""Kernel connection files are hidden from sandboxed commands wherever Jupyter keeps them
(issue 21, suspected): ``$JUPYTER_DATA_DIR/runtime``, ``$XDG_DATA_HOME/jupyter/runtime``,
``$XDG_RUNTIME_DIR/jupyter``, and the kernel's own file (registered by the extension)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nb_agent import hidden_paths

from .test_wrong_classifier_e2e import run_commands

pytestmark = pytest.mark.usefixtures("needs_sandbox")
KEY = "a0b1c2d3-sandbox-test-connection-key"


def _cat(path: Path) -> str:
    """A program reading the file, the path assembled at run time (read scope cannot see it)."""
    parts = ", ".join(repr(p) for p in path.parts[1:])
    return f'python3 -c "import os; print(open(os.path.join(os.sep, {parts})).read())"'


def _connection_file(directory: Path) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "kernel-1234.json"
    path.write_text(json.dumps({"key": KEY, "shell_port": 1}))
    return path


@pytest.mark.parametrize(
    "variable, runtime",
    [("JUPYTER_DATA_DIR", "runtime"), ("XDG_DATA_HOME", "jupyter/runtime"), ("XDG_RUNTIME_DIR", "jupyter")],
)
async def test_runtime_directories_named_by_the_environment_are_hidden(
    project: Path, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, variable: str, runtime: str
) -> None:
    base = Path("/var/tmp") / f"nb_agent-runtime-{tmp_path.name}"  # outside the private /tmp, so visible unless hidden
    monkeypatch.setenv(variable, str(base))
    try:
        path = _connection_file(base / runtime)
        [(text, _)] = await run_commands(project, home, [_cat(path)])
        assert KEY not in text and "Traceback" in text, text
    finally:
        import shutil

        shutil.rmtree(base, ignore_errors=True)


async def test_the_kernels_own_connection_file_is_hidden(project: Path, home: Path, tmp_path: Path, monkeypatch) -> None:
    base = Path("/var/tmp") / f"nb_agent-cf-{tmp_path.name}"
    try:
        path = _connection_file(base)
        monkeypatch.setattr(hidden_paths, "_registered", [])
        hidden_paths.register_secret(path)
        [(text, _)] = await run_commands(project, home, [_cat(path)])
        assert KEY not in text and "Traceback" in text, text
    finally:
        import shutil

        shutil.rmtree(base, ignore_errors=True)
