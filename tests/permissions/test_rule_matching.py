"""Matching rules against tool calls: Bash commands, paths, domains, MCP names."""

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from nb_agent.permissions.rules import parse_rule, rule_matches, split_shell_command, suggest_rule

CWD = Path("/work/project")


def matches(rule_text: str, tool: Any, *, behavior: str = "allow", cwd: Path = CWD, **raw: Any) -> bool:
    rule = parse_rule(rule_text, behavior=behavior)  # type: ignore[arg-type]
    return rule_matches(rule, tool, tool.parse_input(raw), cwd, home=Path("/home/me"))


# --- Bash ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rule", "command", "expected"),
    [
        ("Bash(git status:*)", "git status", True),
        ("Bash(git status:*)", "git status --short", True),
        ("Bash(git status:*)", "git statusx", False),
        ("Bash(git status:*)", "git stat", False),
        ("Bash(npm run test)", "npm run test", True),
        ("Bash(npm run test)", "npm run test --watch", False),
        ("Bash(npm run test)", "  npm run test  ", True),
        ("Bash(*)", "anything at all; rm -rf /", True),
        ("Bash", "anything at all", True),
        ("Bash(ls *)", "ls -la", True),
        ("Bash(ls *)", "ls", True),
        ("Bash(ls *)", "lsof", False),
        ("Bash(git * main)", "git push origin main", True),
        ("Bash(git * main)", "git push origin dev", False),
        ("Bash(echo \\*)", "echo *", True),
        ("Bash(echo \\*)", "echo hi", False),
    ],
)
def test_bash_allow_patterns(tools: SimpleNamespace, rule: str, command: str, expected: bool) -> None:
    assert matches(rule, tools.bash, command=command) is expected


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("git status && git status -s", True),
        ("git status && rm -rf /", False),
        ("git status; rm -rf /", False),
        ("git status | sh", False),
        ("git status & rm -rf /", False),
        ("git status\nrm -rf /", False),
        ("git status $(rm -rf /)", False),
        ("git status `rm -rf /`", False),
        ('git status "$(rm -rf /)"', False),
        ("git status 2>&1", True),
        ("git status 'a && b'", True),
        ('git status "unbalanced', False),
    ],
)
def test_allow_rule_must_cover_every_part_of_a_compound_command(
    tools: SimpleNamespace, command: str, expected: bool
) -> None:
    assert matches("Bash(git status:*)", tools.bash, command=command) is expected


def test_exact_allow_rule_may_name_a_whole_compound_command(tools: SimpleNamespace) -> None:
    assert matches("Bash(cd build && make)", tools.bash, command="cd build && make")
    assert not matches("Bash(cd *)", tools.bash, command="cd build && make")


@pytest.mark.parametrize(
    "command",
    [
        "rm -rf x",
        "ls && rm -rf x",
        "ls || rm x",
        "ls | xargs rm",
        "timeout 5 rm x",
        "nice -n 5 rm x",
        "FOO=1 rm x",
        "sudo rm x",
        "/bin/rm x",
        "echo $(rm -rf x)",
        "echo `rm x`",
        "ls;rm x",
        "ls  &&  rm   -rf x",
    ],
)
def test_deny_rule_matches_if_any_part_matches(tools: SimpleNamespace, command: str) -> None:
    assert matches("Bash(rm:*)", tools.bash, behavior="deny", command=command)


def test_deny_rule_does_not_over_match_words(tools: SimpleNamespace) -> None:
    assert not matches("Bash(rm:*)", tools.bash, behavior="deny", command="rmdir x && echo rm")


def test_split_shell_command() -> None:
    assert split_shell_command("a && b || c; d | e & f") == ["a", "b", "c", "d", "e", "f"]
    assert split_shell_command("echo 'x;y' \"a|b\" c\\;d") == ["echo 'x;y' \"a|b\" c\\;d"]
    assert split_shell_command("cmd >&2 2>&1 &> out") == ["cmd >&2 2>&1 &> out"]
    assert split_shell_command("echo $(date)") is None
    assert split_shell_command("echo 'open") is None


# --- file paths ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("src/a.py", True),
        ("src/pkg/deep/b.py", True),
        ("/work/project/src/a.py", True),
        ("./src/a.py", True),
        ("other/a.py", False),
        ("srcx/a.py", False),
        ("src/../other/a.py", False),
        ("/elsewhere/src/a.py", False),
    ],
)
def test_edit_glob_relative_to_cwd(tools: SimpleNamespace, path: str, expected: bool) -> None:
    assert matches("Edit(src/**)", tools.edit, file_path=path) is expected


@pytest.mark.parametrize("tool_name", ["edit", "write", "notebook_edit"])
def test_edit_rules_cover_every_file_editing_tool(tools: SimpleNamespace, tool_name: str) -> None:
    assert matches("Edit(src/**)", getattr(tools, tool_name), file_path="src/a.py")
    assert matches("Edit", getattr(tools, tool_name), file_path="anything")


def test_write_rule_covers_only_write(tools: SimpleNamespace) -> None:
    assert matches("Write(src/**)", tools.write, file_path="src/a.py")
    assert not matches("Write(src/**)", tools.edit, file_path="src/a.py")


def test_edit_deny_rule_does_not_deny_reads(tools: SimpleNamespace) -> None:
    assert not matches("Edit(src/**)", tools.read, behavior="deny", file_path="src/a.py")
    assert matches("Edit(src/**)", tools.read, behavior="allow", file_path="src/a.py")


@pytest.mark.parametrize(
    ("path", "expected"), [("a.csv", True), ("data/x/a.csv", True), ("a.csv.bak", False), ("a.txt", False)]
)
def test_read_double_star_glob(tools: SimpleNamespace, path: str, expected: bool) -> None:
    assert matches("Read(**/*.csv)", tools.read, file_path=path) is expected
    assert matches("Read(**/*.csv)", tools.glob, file_path=path) is expected


def test_unanchored_name_matches_at_any_depth(tools: SimpleNamespace) -> None:
    assert matches("Read(.env)", tools.read, behavior="deny", file_path=".env")
    assert matches("Read(.env)", tools.read, behavior="deny", file_path="config/.env")
    assert matches("Read(*.env)", tools.read, behavior="deny", file_path="config/prod.env")
    assert not matches("Read(.env)", tools.read, behavior="deny", file_path="config/.envrc")


def test_directory_pattern_covers_its_contents(tools: SimpleNamespace) -> None:
    assert matches("Edit(build/)", tools.edit, file_path="build/out/x.o")
    assert matches("Edit(secrets)", tools.edit, behavior="deny", file_path="a/secrets/key.pem")


def test_absolute_home_and_project_anchors(tools: SimpleNamespace) -> None:
    assert matches("Read(//etc/**)", tools.read, behavior="deny", file_path="/etc/hosts")
    assert not matches("Read(//etc/**)", tools.read, behavior="deny", file_path="etc/hosts")
    assert matches("Read(~/.ssh/**)", tools.read, behavior="deny", file_path="/home/me/.ssh/id_rsa")
    assert matches("Read(~/.ssh/**)", tools.read, behavior="deny", file_path="~/.ssh/id_rsa")
    assert not matches("Read(~/.ssh/**)", tools.read, behavior="deny", file_path="/work/project/.ssh/id_rsa")


def test_slash_pattern_is_relative_to_the_rule_root_not_the_cwd(tools: SimpleNamespace) -> None:
    rule = parse_rule("Edit(/src/**)", root=Path("/work/project"))
    inside = tools.edit.parse_input({"file_path": "/work/project/src/a.py"})
    assert rule_matches(rule, tools.edit, inside, Path("/work/project/notebooks"))
    nested = tools.edit.parse_input({"file_path": "/work/project/notebooks/src/a.py"})
    assert not rule_matches(rule, tools.edit, nested, Path("/work/project/notebooks"))


def test_glob_character_classes_and_question_mark(tools: SimpleNamespace) -> None:
    assert matches("Edit(log?.txt)", tools.edit, file_path="log1.txt")
    assert not matches("Edit(log?.txt)", tools.edit, file_path="log12.txt")
    assert matches("Edit(v[0-9].md)", tools.edit, file_path="v3.md")
    assert not matches("Edit(v[!0-9].md)", tools.edit, file_path="v3.md")


# --- other tools -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://example.com/docs", True),
        ("http://EXAMPLE.com:8080/x", True),
        ("https://example.org/", False),
        ("https://evil.com/example.com", False),
        ("https://sub.example.com/", False),
    ],
)
def test_webfetch_domain(tools: SimpleNamespace, url: str, expected: bool) -> None:
    assert matches("WebFetch(domain:example.com)", tools.web_fetch, url=url) is expected


def test_webfetch_wildcard_subdomain(tools: SimpleNamespace) -> None:
    assert matches("WebFetch(domain:*.example.com)", tools.web_fetch, url="https://api.example.com/")
    assert not matches("WebFetch(domain:*.example.com)", tools.web_fetch, url="https://example.community/")


@pytest.mark.parametrize(
    ("rule", "expected"),
    [
        ("mcp__github", {"mcp_create_issue", "mcp_list_repos"}),
        ("mcp__github__*", {"mcp_create_issue", "mcp_list_repos"}),
        ("mcp__github__create_issue", {"mcp_create_issue"}),
        ("mcp__git", set()),
    ],
)
def test_mcp_rules(tools: SimpleNamespace, rule: str, expected: set[str]) -> None:
    names = {"mcp_create_issue", "mcp_list_repos", "mcp_other"}
    got = {n for n in names if matches(rule, getattr(tools, n))}
    assert got == expected


def test_bare_rule_for_another_tool(tools: SimpleNamespace) -> None:
    assert matches("Agent", tools.agent)
    assert not matches("Agent(explorer)", tools.agent)  # the tool exposes no content
    assert not matches("Bash", tools.agent)


# --- suggestions -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "suggestion"),
    [
        ("touch foo.txt", "Bash(touch:*)"),
        ("git commit -m x", "Bash(git commit:*)"),
        ("npm run test", "Bash(npm run:*)"),
        ("pip install pandas", "Bash(pip install:*)"),
        ("docker ps -a", "Bash(docker ps:*)"),
        ("uv sync", "Bash(uv sync:*)"),
        ("git -C repo push", "Bash(git -C repo push)"),
        ("make && make install", "Bash(make && make install)"),
        ("bash script.sh", "Bash(bash script.sh)"),
        ("rm -rf build", "Bash(rm -rf build)"),
        ("mv data.csv old/data.csv", "Bash(mv data.csv old/data.csv)"),  # not Bash(mv:*): any file moved over any other
        ("cp data.csv backup/data.csv", "Bash(cp data.csv backup/data.csv)"),  # not Bash(cp:*): any file copied over any other
        ("FOO=1 pytest", "Bash(FOO=1 pytest)"),
        ("pytest -q", "Bash(pytest:*)"),
        ("echo $(date)", "Bash(echo $(date))"),
        ("printf 'a'\nprintf 'b'", None),
    ],
)
def test_suggest_bash_rule(tools: SimpleNamespace, command: str, suggestion: str | None) -> None:
    assert suggest_rule(tools.bash, tools.bash.parse_input({"command": command})) == suggestion


def test_suggested_bash_rule_matches_the_command(tools: SimpleNamespace) -> None:
    for command in ("touch foo.txt", "git commit -m 'x y'", "git -C repo push", "make && make install"):
        suggestion = suggest_rule(tools.bash, tools.bash.parse_input({"command": command}))
        assert suggestion is not None
        assert matches(suggestion, tools.bash, command=command), suggestion


@pytest.mark.parametrize(
    ("tool_name", "path", "suggestion"),
    [
        ("edit", "src/pkg/a.py", "Edit(src/pkg/**)"),
        ("write", "/work/project/notes.md", "Edit(./**)"),
        ("notebook_edit", "analysis.ipynb", "Edit(./**)"),
        ("read", "/data/raw/x.csv", "Read(//data/raw/**)"),
    ],
)
def test_suggest_file_rule(tools: SimpleNamespace, tool_name: str, path: str, suggestion: str) -> None:
    tool = getattr(tools, tool_name)
    got = suggest_rule(tool, tool.parse_input({"file_path": path}), cwd=CWD)
    assert got == suggestion
    assert matches(got, tool, file_path=path)


def test_suggest_other_rules(tools: SimpleNamespace) -> None:
    fetch = tools.web_fetch.parse_input({"url": "https://docs.python.org/3/"})
    assert suggest_rule(tools.web_fetch, fetch) == "WebFetch(domain:docs.python.org)"
    assert suggest_rule(tools.agent, tools.agent.parse_input({})) == "Agent"
    mcp = tools.mcp_create_issue
    assert suggest_rule(mcp, mcp.parse_input({})) == "mcp__github__create_issue"





@pytest.mark.parametrize(
    "command",
    [
        "f() { git status; }; f",
        "git status ${x:=y}",
        "git status <(ls)",
        "git status $(ls)",
    ],
)
def test_allow_rule_refuses_what_the_parser_flags(tools: SimpleNamespace, command: str) -> None:
    assert not matches("Bash(git status:*)", tools.bash, command=command)


@pytest.mark.parametrize("command", ["if true; then rm x; fi", "for f in *; do rm $f; done", "(cd x; rm y)", "{ rm x; }"])
def test_deny_rule_sees_inside_compound_commands(tools: SimpleNamespace, command: str) -> None:
    assert matches("Bash(rm:*)", tools.bash, behavior="deny", command=command)


@pytest.mark.parametrize("command", ["if true; then rm x; fi", "(cd x; rm y)", "{ rm x; }", "ls && rm x"])
def test_deny_without_the_bash_parser(
    tools: SimpleNamespace, monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    from nb_agent.permissions import rules

    monkeypatch.setattr(rules, "_parse", lambda command: None)
    assert matches("Bash(rm:*)", tools.bash, behavior="deny", command=command)
    assert not matches("Bash(ls:*)", tools.bash, command="ls && rm x")
    assert matches("Bash(ls:*)", tools.bash, command="ls -la | ls")
