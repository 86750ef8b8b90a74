"""An empty or relative ``PATH`` entry never resolves a program into the kernel's folder
(issue 21, suspected): the shell every Bash command runs in, the programs inside it, and
``bwrap`` / ``rg`` that nb_agent starts itself."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from nb_agent.executables import search_path, which
from nb_agent.tools.bash.sandbox import probe_availability
from nb_agent.tools.bash.sandbox.runtime import SandboxRuntime, command_wrapper
from nb_agent.tools.bash.shell import start_command

PLANTED = ("bash", "ls", "rg", "bwrap", "cat")


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The kernel's folder, holding executables named like the programs nb_agent runs."""
    folder = tmp_path / "cloned"
    folder.mkdir()
    for name in PLANTED:
        script = folder / name
        script.write_text(f"#!/bin/sh\ntouch {tmp_path}/ran-{name}\necho planted\n")
        script.chmod(0o755)
    monkeypatch.chdir(folder)
    for spelling in ("", ".", "./", "cloned/../cloned"):
        monkeypatch.setenv("PATH", f"{spelling}:{os.environ['PATH']}")
        assert search_path().split(os.pathsep)[0] != spelling
    monkeypatch.setenv("PATH", f":.:{os.environ['PATH']}")  # both spellings, ahead of the system's
    return folder


def _ran(tmp_path: Path) -> list[str]:
    return sorted(p.name for p in tmp_path.glob("ran-*"))


@pytest.mark.parametrize("sandboxed", [False, True])
def test_commands_never_run_the_folders_programs(folder: Path, tmp_path: Path, sandboxed: bool) -> None:
    wrapper = None
    if sandboxed:
        if not probe_availability().available:
            pytest.skip("no sandbox here")
        wrapper = command_wrapper(SandboxRuntime(project_dir=folder), additional_directories=())
    running = start_command("ls >/dev/null; cat /dev/null; echo $PATH", cwd=folder, output_dir=tmp_path / "out", wrapper=wrapper)
    running.process.wait()
    output = running.output_path.read_text()
    assert "planted" not in output and _ran(tmp_path) == [], (output, _ran(tmp_path))
    assert not any(entry in ("", ".") for entry in output.strip().split(os.pathsep)), output


def test_nb_agents_own_programs_are_not_looked_up_in_the_folder(folder: Path) -> None:
    for name in ("bash", "rg", "bwrap"):
        found = which(name)
        assert found is None or not found.startswith(str(folder)), (name, found)
