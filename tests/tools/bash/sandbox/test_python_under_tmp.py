"""A kernel whose Python lives under /tmp (a checkout and its venv there, as a fresh CI
clone makes) runs that Python inside the sandbox: its environment and the folders it
imports from are bound read-only over the command's private /tmp (what the rest of /tmp
holds stays out). Before, the reproducibility check's fresh kernel failed there with
``bwrap: execvp …/.venv/bin/python: No such file or directory``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from nb_agent.tools.bash.sandbox import SandboxRuntime, command_wrapper

pytestmark = pytest.mark.usefixtures("needs_sandbox")


@pytest.fixture
def python_in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A venv under /tmp, made the kernel's own, importing a module from a folder under /tmp."""
    assert str(tmp_path).startswith("/tmp/")
    venv = tmp_path / "checkout" / ".venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    source = tmp_path / "checkout" / "src"
    source.mkdir()
    (source / "probe_module.py").write_text("WHERE = 'imported from the kernel path'\n")
    (site,) = (venv / "lib").glob("python*/site-packages")
    (site / "probe.pth").write_text(f"{source}\n")
    monkeypatch.setattr(sys, "prefix", str(venv))
    monkeypatch.setattr(sys, "exec_prefix", str(venv))
    monkeypatch.setattr(sys, "path", [*sys.path, str(source)])
    return venv


def _run(tmp_path: Path, argv: list[str]) -> subprocess.CompletedProcess[str]:
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    cwd_file = tmp_path / "cwd"
    cwd_file.touch()
    wrap = command_wrapper(SandboxRuntime(project_dir=project), additional_directories=())
    wrapped, env = wrap(argv, dict(os.environ), cwd=project, cwd_file=cwd_file)
    try:
        return subprocess.run(wrapped, env=env, pass_fds=wrap.pass_fds, capture_output=True, text=True, timeout=300, check=False)
    finally:
        wrap.started()


def test_the_kernels_python_under_tmp_runs_inside_and_imports_its_folders(tmp_path: Path, python_in_tmp: Path) -> None:
    done = _run(tmp_path, [str(python_in_tmp / "bin" / "python"), "-c", "import probe_module; print(probe_module.WHERE)"])
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "imported from the kernel path"


def test_it_is_read_only_and_the_rest_of_tmp_stays_out(tmp_path: Path, python_in_tmp: Path) -> None:
    source = tmp_path / "checkout" / "src"
    elsewhere = tmp_path / "elsewhere.txt"
    elsewhere.write_text("not the kernel's\n")
    code = (
        "import sys\n"
        f"try:\n    open({str(source / 'planted.py')!r}, 'w')\nexcept OSError as e:\n    print('write refused', e.errno)\n"
        f"try:\n    print(open({str(elsewhere)!r}).read())\nexcept OSError as e:\n    print('read refused', e.errno)\n"
    )
    done = _run(tmp_path, [str(python_in_tmp / "bin" / "python"), "-c", code])
    assert done.returncode == 0, done.stderr
    assert "write refused" in done.stdout and not (source / "planted.py").exists()
    assert "not the kernel's" not in done.stdout and "read refused" in done.stdout
