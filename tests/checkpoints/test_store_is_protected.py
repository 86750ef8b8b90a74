"""The shadow repositories are what a rewind writes back into the user's folders: the agent's
tools may not write them unasked, wherever they are kept."""

from __future__ import annotations

from nb_agent.permissions.protected import protected_reason
from nb_agent.state_dir import checkpoints_dir


def test_the_default_store_is_under_the_protected_state_directory(monkeypatch, tmp_path):
    monkeypatch.delenv("NB_AGENT_CHECKPOINTS_DIR", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    store = checkpoints_dir()
    assert store == tmp_path / ".nb_agent" / "checkpoints"
    assert protected_reason(store / "project-0123456789abcdef" / "objects" / "ab" / "cdef") is not None


def test_a_moved_store_is_protected_too(monkeypatch, tmp_path):
    moved = tmp_path / "elsewhere" / "ckpt"
    monkeypatch.setenv("NB_AGENT_CHECKPOINTS_DIR", str(moved))
    assert checkpoints_dir() == moved
    assert "file checkpoints" in (protected_reason(moved / "repo" / "HEAD") or "")
    assert protected_reason(tmp_path / "elsewhere" / "other.txt") is None


def test_a_relative_store_setting_is_not_used(monkeypatch, tmp_path):
    monkeypatch.setenv("NB_AGENT_CHECKPOINTS_DIR", "ckpt")  # would be read from whatever folder the kernel is in
    monkeypatch.setenv("HOME", str(tmp_path))
    assert checkpoints_dir() == tmp_path / ".nb_agent" / "checkpoints"
