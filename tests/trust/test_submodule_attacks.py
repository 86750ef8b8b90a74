"""Issue 21 §4: ``git status`` in a trusted folder never runs a submodule's commands.

git runs ``git status`` inside every checked-out submodule its index records, and that git
reads the submodule's own configuration: a ``core.fsmonitor`` there runs, whether the
submodule's repository sits in ``.git/modules`` (absorbed), in the submodule's directory,
behind a ``.git`` file pointing elsewhere, or one submodule further down, and whether or not
``.gitmodules`` lists it. Each layout is first shown to run the marker command under real
git; then the model's ``git status`` / ``git diff`` in the trusted folder must ask (here
nobody can approve) and leave no marker.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from nb_agent.testing import Reply, text, tool_use
from nb_agent.testing.collect import collect
from nb_agent.trust import set_trust

from .conftest import git, touch_command
from .test_folder_attacks import result_text, tool_results


def _repo(path: Path, files: dict[str, str]) -> Path:
    path.mkdir(parents=True)
    git(path, "init", "-q", "-b", "main")
    for name, content in files.items():
        (path / name).write_text(content)
    git(path, "add", ".")
    git(path, "commit", "-q", "-m", "init")
    return path


def _add_submodule(top: Path, source: Path, name: str) -> None:
    git(top, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(source), name)
    git(top, "commit", "-q", "-m", f"add {name}")


def _fsmonitor(config: Path, markers: Path) -> None:
    with config.open("a") as handle:
        handle.write(f"[core]\n\tfsmonitor = {touch_command(markers, 'PWNED_submodule')}\n")


def _absorbed(folder: Path, markers: Path, sources: Path) -> None:
    _repo(folder, {"a.txt": "a\n"})
    _add_submodule(folder, _repo(sources / "lib", {"l.txt": "l\n"}), "lib")
    _fsmonitor(folder / ".git" / "modules" / "lib" / "config", markers)


def _in_place(folder: Path, markers: Path, sources: Path) -> None:
    """The submodule's repository in its own directory, and no .gitmodules at all."""
    _repo(folder, {"a.txt": "a\n"})
    inner = _repo(folder / "vendored", {"v.txt": "v\n"})
    git(folder, "add", "vendored")  # a gitlink to the embedded repository
    git(folder, "commit", "-q", "-m", "vendored")
    assert not (folder / ".gitmodules").exists()
    _fsmonitor(inner / ".git" / "config", markers)


def _gitfile_elsewhere(folder: Path, markers: Path, sources: Path) -> None:
    _repo(folder, {"a.txt": "a\n"})
    _add_submodule(folder, _repo(sources / "lib", {"l.txt": "l\n"}), "lib")
    elsewhere = sources / "moved.git"
    shutil.move(str(folder / ".git" / "modules" / "lib"), elsewhere)
    (folder / "lib" / ".git").write_text(f"gitdir: {elsewhere}\n")
    git(folder, "config", "-f", str(elsewhere / "config"), "core.worktree", str(folder / "lib"))
    _fsmonitor(elsewhere / "config", markers)


def _nested(folder: Path, markers: Path, sources: Path) -> None:
    leaf = _repo(sources / "leaf", {"x.txt": "x\n"})
    middle = _repo(sources / "middle", {"m.txt": "m\n"})
    _add_submodule(middle, leaf, "leaf")
    _repo(folder, {"a.txt": "a\n"})
    _add_submodule(folder, middle, "middle")
    git(folder, "-c", "protocol.file.allow=always", "submodule", "update", "-q", "--init", "--recursive")
    _fsmonitor(folder / ".git" / "modules" / "middle" / "modules" / "leaf" / "config", markers)


LAYOUTS: dict[str, Callable[[Path, Path, Path], None]] = {
    "absorbed in .git/modules": _absorbed,
    "in its own directory, not in .gitmodules": _in_place,
    "a .git file pointing elsewhere": _gitfile_elsewhere,
    "one submodule further down": _nested,
}


@pytest.mark.parametrize("layout", list(LAYOUTS))
async def test_a_submodules_fsmonitor_never_runs(folder, markers, make_engine, home, tmp_path, layout) -> None:
    folder.rmdir()
    LAYOUTS[layout](folder, markers, tmp_path / "sources")
    (folder / "a.txt").write_text("changed\n")
    subprocess.run(["git", "status"], cwd=folder, capture_output=True, check=True)
    assert (markers / "PWNED_submodule").exists(), "git itself runs the submodule's fsmonitor"
    (markers / "PWNED_submodule").unlink()

    set_trust(folder, True, home=home)
    calls = [tool_use("Bash", {"command": c}, id=f"toolu_sub_{i}") for i, c in enumerate(["git status", "git diff", "git status --short"])]
    turns = [*(Reply(content=[call]) for call in calls), Reply(content=[text("done")])]
    engine, _, transport = make_engine(folder, turns)
    await collect(engine, "what changed?")
    results = tool_results(transport)
    assert len(results) == 3 and all("no approver" in result_text(r) for r in results), results
    assert not (markers / "PWNED_submodule").exists()


async def test_a_harmless_submodule_does_not_make_git_ask(folder, make_engine, home, tmp_path) -> None:
    folder.rmdir()
    _repo(folder, {"a.txt": "a\n"})
    _add_submodule(folder, _repo(tmp_path / "sources" / "lib", {"l.txt": "l\n"}), "lib")
    set_trust(folder, True, home=home)
    engine, _, transport = make_engine(folder, [Reply(content=[tool_use("Bash", {"command": "git status"}, id="toolu_ok")]),
                                                Reply(content=[text("done")])])
    await collect(engine, "status?")
    assert "On branch main" in result_text(tool_results(transport)[0])
