"""Families 4, 5, 6, 7 through the policy: the real Bash tool's classifier, real files,
real git repositories; every command judged in the directory it will run in."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from nb_agent.abort import AbortController
from nb_agent.permissions import RuleBasedPolicy
from nb_agent.permissions.types import PermissionAllow, PermissionAsk, PermissionDeny
from nb_agent.tools.base import ToolSession, ToolUseContext
from nb_agent.tools.bash import BashTool

BASH = BashTool()


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("KEY")
    project = tmp_path / "project"
    (project / "src").mkdir(parents=True)
    (project / "notes.txt").write_text("notes\n")
    (project / ".env").write_text("SECRET=1\n")
    (project / "src" / "a.py").write_text("x = 1\n")
    (project / "list.txt").write_text(str(home / ".ssh" / "id_rsa") + "\n")
    (project / "link").symlink_to(home / ".ssh" / "id_rsa")
    (tmp_path / "outside.txt").write_text("o")
    for name in [key for key in os.environ if key.startswith("GIT_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CDPATH", raising=False)
    return {"home": home, "project": project, "tmp": tmp_path}


def decide(world: dict[str, Path], command: str, *, cwd: Path | None = None, mode: str = "default",
           **rules: list[str]) -> object:
    policy = RuleBasedPolicy(project_dir=world["project"], home=world["home"], mode=mode, **rules)  # type: ignore[arg-type]
    session = ToolSession(cwd=cwd or world["project"])
    ctx = ToolUseContext(abort_controller=AbortController(), session=session)
    import asyncio

    return asyncio.run(policy.decide(BASH, BASH.parse_input({"command": command}), ctx))


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


# --- family 7: the read scope ----------------------------------------------------------

OUTSIDE_READS = [
    "cat ~/.ssh/id_rsa",
    "cat $HOME/.ssh/id_rsa",
    'cat "$HOME/.ssh/id_rsa"',
    "cat ../outside.txt",
    "cat src/../../outside.txt",
    "head -n 1 /etc/hostname",
    "cat link",
    "cat lin?",
    "cat *",
    "wc -l < ~/.ssh/id_rsa",
    "wc -l < ../outside.txt",
    "grep -r KEY ~",
    "rg KEY ~/.ssh",
    "ls ~/.ssh",
    "ls -la ..",
    "cd .. && cat outside.txt",
    "cd ~ && cat .ssh/id_rsa",
    "cd; cat .ssh/id_rsa",
    "cd ..; ls",
    "cd /etc && ls",
    "cd src && cat ../../outside.txt",
    'd=..; cd "$d" && ls',
    "for f in ~/.ssh/*; do cat \"$f\"; done",
    "for f in link; do cat \"$f\"; done",
    "xargs cat < list.txt",
    "cat list.txt | xargs cat",
    "find ~ -name id_rsa",
    "tail -f ~/.bashrc",
    "diff ~/.ssh/id_rsa notes.txt",
    "cmp notes.txt /etc/hostname",
    "awk '{print}' ~/.ssh/id_rsa",
    "sed -n p ~/.ssh/id_rsa",
    "sort -o /dev/null --files0-from=/etc/hostname",
    "grep -f/etc/hostname notes.txt",
    "grep --file=/etc/hostname notes.txt",
    "git diff --no-index ~/.ssh/id_rsa notes.txt",
    "git show HEAD:../outside.txt",
    "jq . ~/.config/x.json",
    "stat ~/.ssh/id_rsa",
    "cat ~root/.profile",
    "cat {link,notes.txt}",
    "cat -- ~/.ssh/id_rsa",
    "test -f ~/.ssh/id_rsa && echo yes",
    "[ -e /etc/shadow ]",
    "[[ -r ../outside.txt ]]",
]


@pytest.mark.parametrize("command", OUTSIDE_READS)
def test_reads_outside_the_working_directories_ask(world: dict[str, Path], command: str) -> None:
    decision = decide(world, command)
    assert not isinstance(decision, PermissionAllow), (command, decision)


DENIED_READS = [
    "cat .env",
    "cat ./.env",
    "cat src/../.env",
    "cat $PWD/.env",
    "head -c 10 .env",
    "grep SECRET .env",
    "rg SECRET .env",
    "wc -c < .env",
    "awk 1 .env",
    "sed -n 1p .env",
    "cat .e*",
    "cat .en?",
    "cat .[e]nv",
    "for f in .env notes.txt; do cat \"$f\"; done",
    "cd src && cat ../.env",
    "diff .env notes.txt",
    "xxd .env",
    "cat notes.txt .env",
    "timeout 5 cat .env",
    "git show HEAD:.env",
]


@pytest.mark.parametrize("command", DENIED_READS)
def test_read_deny_rule_stops_bash_readers(world: dict[str, Path], command: str) -> None:
    decision = decide(world, command, deny=["Read(./.env)"])
    assert not isinstance(decision, PermissionAllow), (command, decision)


@pytest.mark.parametrize("command", ["grep -r SECRET .", "rg SECRET", "rg SECRET .", "grep -r SECRET", "cat ."])
def test_recursive_readers_over_a_denied_file_ask(world: dict[str, Path], command: str) -> None:
    decision = decide(world, command, deny=["Read(./.env)"])
    assert isinstance(decision, PermissionAsk), (command, decision)
    assert isinstance(decide(world, command), PermissionAllow), command


@pytest.mark.parametrize("command", ["grep -R SECRET", "grep -rR SECRET .", "grep --dereference-rec SECRET",
                                     "rg -L SECRET", "rg --follow SECRET .", "find -L . -name x", "ls -RL"])
def test_recursive_readers_following_the_shipped_link_ask(world: dict[str, Path], command: str) -> None:
    """`project/link` points at ~/.ssh/id_rsa: a reader that follows links reads it."""
    decision = decide(world, command)
    assert isinstance(decision, PermissionAsk) and "id_rsa" in decision.message, (command, decision)
    (world["project"] / "link").unlink()
    assert isinstance(decide(world, command), PermissionAllow), command


@pytest.mark.parametrize(
    "command",
    ["cat notes.txt", "ls", "ls -la src", "grep -rn x src", "wc -l *.txt", "head notes.txt | sort",
     "for f in src/*.py; do wc -l \"$f\"; done", "cd src && cat a.py", "tr a b < notes.txt",
     "find . -name '*.py'", "rg x src"],
)
def test_reads_inside_the_project_stay_allowed(world: dict[str, Path], command: str) -> None:
    assert isinstance(decide(world, command, deny=["Read(./.env)"]), PermissionAllow), command


def test_a_read_allow_rule_opens_an_outside_directory(world: dict[str, Path]) -> None:
    outside = world["tmp"] / "outside.txt"
    assert isinstance(decide(world, f"cat {outside}"), PermissionAsk)
    assert isinstance(decide(world, f"cat {outside}", allow=[f"Read(/{outside})"]), PermissionAllow)


def test_a_user_rule_is_anchored_at_the_starting_directory(world: dict[str, Path], tmp_path: Path) -> None:
    from nb_agent.permissions.rules import parse_rule

    policy = RuleBasedPolicy(project_dir=world["project"], home=world["home"])
    policy._base_rules = (parse_rule("Read(./.env)", behavior="deny", source="user"),)  # a user-level rule
    session = ToolSession(cwd=world["project"] / "src")  # the model moved the cwd
    ctx = ToolUseContext(abort_controller=AbortController(), session=session)
    import asyncio

    from nb_agent.tools.files import ReadTool

    read = ReadTool()
    decision = asyncio.run(policy.decide(read, read.parse_input({"file_path": "../.env"}), ctx))
    assert isinstance(decision, PermissionDeny)
    decision = asyncio.run(policy.decide(BASH, BASH.parse_input({"command": "cat ../.env"}), ctx))
    assert isinstance(decision, PermissionDeny)


# --- family 4: git where it runs -------------------------------------------------------


@pytest.fixture
def repo(world: dict[str, Path]) -> dict[str, Path]:
    project = world["project"]
    git(project, "init", "-q")
    bare = project / "vendor" / "evil"
    (bare / "objects").mkdir(parents=True)
    (bare / "refs").mkdir()
    (bare / "HEAD").write_text("ref: refs/heads/main\n")
    (bare / "config").write_text("[core]\n\tbare = true\n\tfsmonitor = touch PWNED\n")
    return world


@pytest.mark.parametrize("command", ["git status", "git log --oneline -5", "git diff", "git show HEAD"])
def test_git_in_the_project_root_is_read_only(repo: dict[str, Path], command: str) -> None:
    assert isinstance(decide(repo, command), PermissionAllow), command


@pytest.mark.parametrize("subdir", ["vendor/evil", "vendor", "src"])
def test_git_elsewhere_asks(repo: dict[str, Path], subdir: str) -> None:
    cwd = repo["project"] / subdir
    for command in ("git show HEAD", "git status", "git log"):
        assert isinstance(decide(repo, command, cwd=cwd), PermissionAsk), (subdir, command)


@pytest.mark.parametrize(
    "command",
    ["cd vendor/evil && git show HEAD", "cd src; git log", "pushd vendor/evil && git status",
     "(cd vendor/evil && git log)", "git -C vendor/evil log", "git --git-dir=vendor/evil log",
     "GIT_DIR=vendor/evil git log", "env GIT_DIR=vendor/evil git log", "git --exec-path=/tmp log",
     "git -c core.fsmonitor=x status"],
)
def test_git_pointed_elsewhere_asks(repo: dict[str, Path], command: str) -> None:
    assert not isinstance(decide(repo, command), PermissionAllow), command


@pytest.mark.parametrize(
    "config",
    ["[core]\n\tfsmonitor = touch X\n", "[core]\n\tpager = touch X\n", '[diff "x"]\n\ttextconv = touch X\n',
     "[diff]\n\texternal = touch X\n", '[filter "lfs"]\n\tclean = touch X\n', "[core]\n\thooksPath = /tmp\n",
     "[include]\n\tpath = /tmp/other\n", '[includeIf "gitdir:/"]\n\tpath = x\n', "[core] fsmonitor = x\n",
     "[log]\n\tshowSignature = true\n", "[gpg]\n\tprogram = touch\n", "[core.x]\n\tfsmonitor = y\n",
     '[remote "o"]\n\tuploadpack = touch X\n', "[core]\n\tsshCommand = x\n", "[alias]\n\tst = !touch X\n"],
)
def test_git_with_repository_config_that_runs_commands_asks(repo: dict[str, Path], config: str) -> None:
    config_path = repo["project"] / ".git" / "config"
    config_path.write_text(config_path.read_text() + config)
    assert isinstance(decide(repo, "git status"), PermissionAsk), config


def test_git_with_a_hook_or_a_git_variable_asks(repo: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    assert isinstance(decide(repo, "git status"), PermissionAllow)
    for name in ("GIT_DIR", "GIT_CONFIG_GLOBAL", "GIT_EXTERNAL_DIFF", "GIT_EXEC_PATH", "GIT_CONFIG_COUNT"):
        monkeypatch.setenv(name, "x")
        assert isinstance(decide(repo, "git status"), PermissionAsk), name
        monkeypatch.delenv(name)
    hook = repo["project"] / ".git" / "hooks" / "post-index-change"
    hook.write_text("#!/bin/sh\ntouch X\n")
    assert isinstance(decide(repo, "git status"), PermissionAsk)


# --- families 5 and 6 through the policy -------------------------------------------------


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("git diff # it's a review step\nrm -f victim.txt", PermissionAsk),
        ("git diff && ls", PermissionAllow),
        ("git diff; cat notes.txt | wc -l", PermissionAllow),
        ("git diff && cat ~/.ssh/id_rsa", PermissionAsk),
        ("git diff; rm x", PermissionAsk),
        ("git diff $'--output=x'; rm x", PermissionAsk),
        ("git diff | sh", PermissionAsk),
    ],
)
def test_allow_rules_and_read_only_parts_together(repo: dict[str, Path], command: str, expected: type) -> None:
    assert isinstance(decide(repo, command, allow=["Bash(git diff:*)"]), expected), command


@pytest.mark.parametrize("mode", ["default", "acceptEdits", "bypassPermissions", "plan"])
@pytest.mark.parametrize(
    "command", ["stdbuf -o0 cat notes.txt", "timeout -s KILL 5 cat notes.txt", "env A=1 cat notes.txt",
                "sudo cat notes.txt", "xargs cat < list.txt", "$'cat' notes.txt", "/bin/cat notes.txt"],
)
def test_deny_rules_see_through_wrappers_in_every_mode(world: dict[str, Path], mode: str, command: str) -> None:
    assert isinstance(decide(world, command, mode=mode, deny=["Bash(cat:*)"]), PermissionDeny), command
