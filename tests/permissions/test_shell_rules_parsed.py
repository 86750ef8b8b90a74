"""Families 5 and 6: Bash rules matched on the classifier's parse, one wrapper-stripping."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from nb_agent.permissions.rules import parse_rule, rule_matches

CWD = Path("/work/project")


def matches(rule_text: str, tool: Any, command: str, *, behavior: str = "allow") -> bool:
    rule = parse_rule(rule_text, behavior=behavior)  # type: ignore[arg-type]
    return rule_matches(rule, tool, tool.parse_input({"command": command}), CWD, home=Path("/home/me"))


HIDDEN_TAILS = (
    "\nrm -f victim.txt",
    " # it's a review step\nrm -f victim.txt",
    " # \"quoted\nrm -f victim.txt",
    " $'it\\'s' x\nrm -f victim.txt",
    " $'a\\nb'; rm -f victim.txt",
    " && rm -f victim.txt",
    " || rm -f victim.txt",
    " | rm -f victim.txt",
    " & rm -f victim.txt",
    "; (rm -f victim.txt)",
    "; { rm -f victim.txt; }",
    "; if true; then rm -f victim.txt; fi",
    "; for x in a; do rm -f victim.txt; done",
    "; f() { rm -f victim.txt; }; f",
    " <<'EOF'\nbody\nEOF\nrm -f victim.txt",
    " <<EOF && rm -f victim.txt\nbody\nEOF",
    " $(rm -f victim.txt)",
    " `rm -f victim.txt`",
    " > victim.txt",
    " 2> victim.txt",
    "; X=1",
    "; PATH=/tmp/evil git diff",
    " ; \\\nrm -f victim.txt",
)


@pytest.mark.parametrize("tail", HIDDEN_TAILS)
def test_allow_rule_does_not_cover_a_hidden_second_command(tools: SimpleNamespace, tail: str) -> None:
    assert not matches("Bash(git diff:*)", tools.bash, "git diff" + tail)
    assert not matches("Bash(git diff)", tools.bash, "git diff" + tail)


@pytest.mark.parametrize("tail", HIDDEN_TAILS[:17])
def test_deny_rule_sees_the_hidden_command(tools: SimpleNamespace, tail: str) -> None:
    assert matches("Bash(rm:*)", tools.bash, "git diff" + tail, behavior="deny")
    assert matches("Bash(rm -f victim.txt)", tools.bash, "git diff" + tail, behavior="ask")


@pytest.mark.parametrize(
    "command",
    [
        "git diff --stat",
        "git diff # a comment",
        "git diff && git diff --cached",
        "git diff | git diff",
        "(git diff)",
        "'git' diff HEAD",
        "git \"diff\" HEAD",
        "timeout 5 git diff",
        "nice -n 2 git diff",
        "git diff 2>&1",
        "git diff 2>/dev/null",
        "LC_ALL=C git diff",
    ],
)
def test_allow_rule_covers_spellings_of_the_same_command(tools: SimpleNamespace, command: str) -> None:
    assert matches("Bash(git diff:*)", tools.bash, command)


WRAPPED_CAT = (
    "stdbuf -o0 cat secret.txt",
    "stdbuf -oL -eL cat secret.txt",
    "stdbuf --output=0 cat secret.txt",
    "timeout -s KILL 5 cat secret.txt",
    "timeout --signal=KILL 5 cat secret.txt",
    "timeout -k 1 5 cat secret.txt",
    "timeout --foreground 5s cat secret.txt",
    "nice cat secret.txt",
    "nice -n 5 cat secret.txt",
    "nice -5 cat secret.txt",
    "nohup cat secret.txt",
    "time cat secret.txt",
    "time -p cat secret.txt",
    "command cat secret.txt",
    "command -p cat secret.txt",
    "builtin cat secret.txt",
    "exec cat secret.txt",
    "exec -a x cat secret.txt",
    "env cat secret.txt",
    "env -i cat secret.txt",
    "env -u HOME A=1 cat secret.txt",
    "env - cat secret.txt",
    "env -S 'cat secret.txt'",
    "sudo cat secret.txt",
    "sudo -u root -E cat secret.txt",
    "doas cat secret.txt",
    "ionice -c3 cat secret.txt",
    "setsid cat secret.txt",
    "xargs cat",
    "xargs -0 -n1 cat",
    "xargs -I{} cat {}",
    "timeout 5 nice -n 1 stdbuf -o0 env A=1 cat secret.txt",
    "/bin/cat secret.txt",
    "/usr/bin/env cat secret.txt",
    "'cat' secret.txt",
    '"cat" secret.txt',
    "c\\at secret.txt",
    "$'cat' secret.txt",
    "$'\\x63at' secret.txt",
    "A=1 cat secret.txt",
    "echo x | cat",
    "timeout --bogus-option 5 cat secret.txt",
    "sudo --unknown cat secret.txt",
)


@pytest.mark.parametrize("command", WRAPPED_CAT)
def test_deny_rule_sees_through_every_wrapper(tools: SimpleNamespace, command: str) -> None:
    assert matches("Bash(cat:*)", tools.bash, command, behavior="deny")
    assert matches("Bash(cat secret.txt)", tools.bash, command.replace("xargs -I{} cat {}", "cat secret.txt"),
                   behavior="ask") or "xargs" in command or command.startswith("echo")


@pytest.mark.parametrize(
    "command",
    ["sudo cat secret.txt", "env A=1 cat secret.txt", "env PATH=/tmp cat x", "command cat x", "exec cat x",
     "xargs cat", "timeout --bogus 5 cat x", "PATH=/tmp/evil cat x", "builtin cat x"],
)
def test_allow_rule_does_not_see_through_wrappers_that_change_what_runs(tools: SimpleNamespace, command: str) -> None:
    assert not matches("Bash(cat:*)", tools.bash, command)


def test_deny_rule_still_does_not_over_match_words(tools: SimpleNamespace) -> None:
    assert not matches("Bash(cat:*)", tools.bash, "echo cat && concat x", behavior="deny")
