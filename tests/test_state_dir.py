"""The default state directory (``.nb_agent`` in the folder) is not followed through links a
folder planted out of itself: nb_agent would write its transcripts, with text the model
chose, wherever they lead (``~/.bashrc.d`` is sourced by every new shell on Fedora)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from nb_agent.agent import create_engine
from nb_agent.engine import EngineConfig, EngineOptions
from nb_agent.model.retry import NO_RETRIES
from nb_agent.state_dir import default_state_dir
from nb_agent.testing import Reply, ScriptedTransport, text
from nb_agent.testing.collect import collect


def _state_dir_linked_out(folder: Path, target: Path) -> None:
    (folder / ".nb_agent").symlink_to(target.parent)  # target is <that>/sessions


def _sessions_linked_out(folder: Path, target: Path) -> None:
    (folder / ".nb_agent").mkdir()
    (folder / ".nb_agent" / "sessions").symlink_to(target)


def _relative_link_up(folder: Path, target: Path) -> None:
    (folder / ".nb_agent").mkdir()
    (folder / ".nb_agent" / "sessions").symlink_to(Path("..") / ".." / ".." / "home" / ".bashrc.d")


PLANTED: dict[str, Callable[[Path, Path], None]] = {
    ".nb_agent links out": _state_dir_linked_out,
    ".nb_agent/sessions links out": _sessions_linked_out,
    "relative link up": _relative_link_up,
}


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    home, folder = tmp_path / "home", tmp_path / "downloads" / "repo"
    (home / ".bashrc.d").mkdir(parents=True)
    folder.mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    markers = tmp_path / "markers"
    markers.mkdir()
    return {"home": home, "folder": folder, "markers": markers, "rc": home / ".bashrc.d"}


@pytest.mark.parametrize("layout", PLANTED)
async def test_transcripts_do_not_follow_links_out_of_the_folder(world: dict[str, Path], layout: str) -> None:
    folder, rc = world["folder"], world["rc"]
    if layout == ".nb_agent links out":
        rc = world["home"] / "profile" / "sessions"
        rc.mkdir(parents=True)
    PLANTED[layout](folder, rc)
    assert (folder / ".nb_agent" / "sessions").resolve() == rc.resolve(), "the link really leads there"
    payload = f"Done. $(touch {world['markers'] / 'PWNED'})"
    transport = ScriptedTransport([Reply(content=[text(payload)])])
    config = EngineConfig(cwd=folder, model="claude-sonnet-4-6", options=EngineOptions(retry_policy=NO_RETRIES))
    engine, warnings = create_engine(config=config, transport=transport, home=world["home"], agents=False, mcp=False)
    await collect(engine, "go")
    assert list(rc.iterdir()) == []
    assert engine.transcript_path.exists() and payload in engine.transcript_path.read_text()
    assert any("links outside" in w for w in warnings), warnings
    # what the link was for: a shell sourcing the transcript runs the model's $(...)
    subprocess.run(["bash", "-c", f'. "{engine.transcript_path}"'], capture_output=True)
    assert (world["markers"] / "PWNED").exists()


def test_links_within_the_folder_are_followed(world: dict[str, Path]) -> None:
    folder = world["folder"]
    (folder / "state").mkdir()
    (folder / ".nb_agent").symlink_to("state")
    assert default_state_dir(folder) == (folder / ".nb_agent", None)
    plain = world["home"] / "plain"
    plain.mkdir()
    assert default_state_dir(plain) == (plain / ".nb_agent", None)


def test_the_fallback_is_private_and_stable(world: dict[str, Path]) -> None:
    _sessions_linked_out(world["folder"], world["rc"])
    first, warning = default_state_dir(world["folder"])
    assert warning is not None and first == default_state_dir(world["folder"])[0]
    assert first.stat().st_mode & 0o077 == 0


_CHOOSE = "import sys; from pathlib import Path; from nb_agent.state_dir import default_state_dir; print(default_state_dir(Path(sys.argv[1])))"


def _choose_read_only(folder: Path, home: Path) -> str:
    """``default_state_dir(folder)`` in a process that sees ``folder`` mounted read-only
    (bubblewrap; as root, a mode bit would not stop the write), with ``home`` as its HOME."""
    proc = subprocess.run(
        ["bwrap", "--dev-bind", "/", "/", "--ro-bind", str(folder), str(folder), sys.executable, "-c", _CHOOSE, str(folder)],
        capture_output=True, text=True, timeout=60, env={**os.environ, "HOME": str(home)},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_a_folder_the_kernel_cannot_write_keeps_its_sessions_in_the_home(world: dict[str, Path]) -> None:
    """A gateway kernel's folder is often its image's, read-only: the sessions go to
    ~/.nb_agent/projects/<the folder>, and a warning says where."""
    shown = _choose_read_only(world["folder"], world["home"])
    expected = world["home"] / ".nb_agent" / "projects" / str(world["folder"]).strip("/").replace("/", "-")
    assert f"PosixPath('{expected}')" in shown and "is not writable on the kernel's machine" in shown, shown
    assert not (world["folder"] / ".nb_agent").exists()


def test_a_folder_that_is_not_on_this_machine_is_never_made(world: dict[str, Path]) -> None:
    missing = world["home"].parent / "server" / "work"  # the notebook's folder on the Jupyter server
    state, warning = default_state_dir(missing)
    assert warning and "not writable on the kernel's machine" in warning and not missing.exists()
    assert state.is_relative_to(world["home"] / ".nb_agent" / "projects")
