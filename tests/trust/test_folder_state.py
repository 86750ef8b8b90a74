"""Which folders need trust, and what the recorded answer makes of them."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from nb_agent.folder_trust import folder_trust, trust_reasons
from nb_agent.trust import set_trust

from .conftest import git, write_settings


@pytest.mark.parametrize(
    "data",
    [
        {"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "true"}]}]}},
        {"permissions": {"allow": ["Bash"]}},
        {"permissions": {"defaultMode": "bypassPermissions"}},
        {"permissions": {"additionalDirectories": ["~"]}},
        {"env": {"BASH_ENV": "/tmp/x"}},
        {"defaultMode": "bypassPermissions"},  # a key nb_agent does not read: still asks (fail closed)
        {"apiKeyHelper": "touch x"},
        {"statusLine": {"type": "command", "command": "touch x"}},
        {"someFutureKey": True},
    ],
)
@pytest.mark.parametrize("name", ["settings.json", "settings.local.json"])
def test_settings_that_change_behaviour_need_trust(folder: Path, home: Path, data: dict, name: str) -> None:
    write_settings(folder, data, name=name)
    reasons = trust_reasons(folder, home=home)
    assert len(reasons) == 1 and reasons[0].startswith(f".claude/{name}")
    assert folder_trust(folder, home=home).state == "unanswered"


@pytest.mark.parametrize(
    "data",
    [
        {"permissions": {"deny": ["Bash(rm:*)"], "ask": ["Read(./.env)"]}},
        {"$schema": "https://json.schemastore.org/claude-code-settings.json", "permissions": {"allow": []}},
        {"sandbox": {"enabled": True}},
    ],
)
def test_settings_that_only_tighten_need_none(folder: Path, home: Path, data: dict) -> None:
    write_settings(folder, data)
    assert folder_trust(folder, home=home).state == "not_needed"


def test_mcp_servers_agents_and_repositories_need_trust(folder: Path, home: Path) -> None:
    assert folder_trust(folder, home=home).state == "not_needed"
    (folder / ".mcp.json").write_text('{"mcpServers": {"x": {"command": "touch"}}}')
    (folder / ".claude" / "agents").mkdir(parents=True)
    (folder / ".claude" / "agents" / "a.md").write_text("---\nname: a\ndescription: b\n---\nhi")
    git(folder, "init", "-q")
    reasons = trust_reasons(folder, home=home)
    assert [r.split(" ")[0] for r in reasons] == [".mcp.json", ".claude/agents", "a"], reasons


def test_a_repository_is_found_from_a_subfolder_and_through_a_gitdir_file(folder: Path, home: Path, tmp_path: Path) -> None:
    git(folder, "init", "-q")
    sub = folder / "src" / "pkg"
    sub.mkdir(parents=True)
    assert any("git repository" in r for r in trust_reasons(sub, home=home))
    other = tmp_path / "worktree"
    other.mkdir()
    (other / ".git").write_text(f"gitdir: {folder / '.git'}\n")
    assert any("git repository" in r for r in trust_reasons(other, home=home))
    bare = tmp_path / "bare"
    bare.mkdir()
    git(bare, "init", "-q", "--bare")  # a bare repository shipped as ordinary files is one to git
    assert any("git repository" in r for r in trust_reasons(bare, home=home))


def test_the_home_folders_own_claude_files_need_no_trust(home: Path) -> None:
    write_settings(home, {"hooks": {"Stop": []}, "permissions": {"allow": ["Bash"]}})
    write_settings(home, {"permissions": {"defaultMode": "acceptEdits"}}, name="settings.local.json")
    (home / ".claude" / "agents").mkdir()
    (home / ".claude" / "agents" / "a.md").write_text("x")
    assert folder_trust(home, home=home).state == "not_needed"


def test_a_symlinked_claude_folder_is_the_projects(folder: Path, home: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    write_settings(elsewhere, {"permissions": {"defaultMode": "bypassPermissions"}})
    (folder / ".claude").symlink_to(elsewhere / ".claude")
    assert folder_trust(folder, home=home).state == "unanswered"
    # even a link into the user's own ~/.claude is the project's file as far as trust goes
    write_settings(home, {"permissions": {"allow": ["Bash"]}})
    other = tmp_path / "other"
    other.mkdir()
    (other / ".claude").symlink_to(home / ".claude")
    assert folder_trust(other, home=home).state == "unanswered"


def test_answers_apply_to_subfolders_and_the_nearest_wins(folder: Path, home: Path) -> None:
    child = folder / "child"
    write_settings(child, {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}})
    set_trust(folder, True, home=home)
    assert folder_trust(child, home=home).state == "trusted"
    set_trust(child, False, home=home)
    assert folder_trust(child, home=home).state == "declined"
    assert not folder_trust(child, home=home).applies
    set_trust(child, True, home=home)
    set_trust(child, False, home=home)  # untrust after trust
    assert folder_trust(child, home=home).state == "declined"


def test_a_parents_settings_are_not_the_subfolders(folder: Path, home: Path) -> None:
    """Settings are read from the starting folder only: a parent's ``.claude`` neither
    applies nor asks (a parent *repository* does, see above)."""
    write_settings(folder, {"permissions": {"defaultMode": "bypassPermissions"}})
    sub = folder / "sub"
    sub.mkdir()
    assert folder_trust(sub, home=home).state == "not_needed"


def test_unreadable_files_are_not_reasons_but_do_not_crash(folder: Path, home: Path) -> None:
    (folder / ".claude").mkdir()
    (folder / ".claude" / "settings.json").write_text("{not json")
    (folder / ".mcp.json").write_text("[]")
    assert folder_trust(folder, home=home).state == "not_needed"
    if os.geteuid() != 0:  # root reads anything
        (folder / ".claude" / "settings.json").chmod(0)
        assert folder_trust(folder, home=home).state == "not_needed"
