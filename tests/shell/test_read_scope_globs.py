"""Issue 21 §3, family 3: globs are matched as bash matches them.

The read scope's expansion is compared with real bash's on generated patterns (bracket
expressions Python's glob reads differently, classes, negation, dotfiles, no match), and
a pattern bash expands to a file a Read deny rule names is denied in every mode.
"""

from __future__ import annotations

import asyncio
import itertools
import shutil
import subprocess
from pathlib import Path

import pytest

from nb_agent.abort import AbortController
from nb_agent.permissions import RuleBasedPolicy
from nb_agent.permissions.types import PermissionAllow, PermissionDeny
from nb_agent.shell.globs import expand_glob, unescape
from nb_agent.tools.base import ToolSession, ToolUseContext
from nb_agent.tools.bash import BashTool

BASH = shutil.which("bash")
NAMES = (".env", ".env.local", ".envrc", "env", "notes.txt", "a.txt", "b-1.txt", "E.txt", "x]y", "x^y", "x!y")
ATOMS = ("*", "?", "[e]", "[!x]", "[^x]", "[[:alpha:]]", "[[:punct:]]", "[.]", "[a-z]", "[]e]", "[!]x]", "[e-", "\\e",
         "[[:upper:]]", "[^[:digit:]]", "[-e]", "[e-f]", "[]]", "[!.]")


def _patterns() -> list[str]:
    found = []
    for atom, (before, after) in itertools.product(ATOMS, ((".", "nv*"), (".e", "v"), ("", "*"), ("x", "y"), (".", "*"), ("", ".txt"))):
        found.append(before + atom + after)
    return found


PATTERNS = _patterns()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    for name in NAMES:
        (tmp_path / name).write_text("x\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / ".env").write_text("x\n")
    return tmp_path


def _bash_expansion(pattern: str, cwd: Path) -> list[str]:
    assert BASH is not None
    script = f"for f in {pattern}; do printf '%s\\0' \"$f\"; done"
    done = subprocess.run([BASH, "-c", script], cwd=cwd, capture_output=True, check=True)
    return [word for word in done.stdout.decode().split("\0") if word]


@pytest.mark.skipif(BASH is None, reason="no bash")
def test_the_expansion_is_bash_s_on_every_generated_pattern(project: Path) -> None:
    differences = []
    for pattern in [*PATTERNS, *(f"sub/{p}" for p in PATTERNS[::5]), *(f"*/{p}" for p in PATTERNS[::9])]:
        ours = expand_glob(pattern, project)
        if ours is None:
            continue  # not modelled: the read scope asks
        expected = sorted(_bash_expansion(pattern, project))
        got = sorted(ours) or [unescape(pattern)]
        if got != expected:
            differences.append((pattern, got, expected))
    assert len(PATTERNS) > 100
    assert differences == []


BASH_TOOL = BashTool()


def _decide(project: Path, command: str, mode: str) -> object:
    policy = RuleBasedPolicy(project_dir=project, home=project / "home", mode=mode, deny=["Read(./.env)", "Read(./.env.local)"])  # type: ignore[arg-type]
    ctx = ToolUseContext(abort_controller=AbortController(), session=ToolSession(cwd=project))
    return asyncio.run(policy.decide(BASH_TOOL, BASH_TOOL.parse_input({"command": command}), ctx))


@pytest.mark.skipif(BASH is None, reason="no bash")
@pytest.mark.parametrize("mode", ["default", "bypassPermissions"])
def test_a_pattern_bash_expands_to_a_denied_file_is_denied(project: Path, mode: str) -> None:
    checked = 0
    for pattern in PATTERNS:
        expansion = set(_bash_expansion(pattern, project))
        decision = _decide(project, f"cat {pattern}", mode)
        if expansion & {".env", ".env.local"}:
            checked += 1
            assert not isinstance(decision, PermissionAllow), (pattern, expansion, decision)
            if expand_glob(pattern, project) is not None:
                assert isinstance(decision, PermissionDeny), (pattern, decision)
    assert checked >= 10


@pytest.mark.parametrize("command", ["cat .[^x]nv", "cat .[!x]nv", "cat .[[:alpha:]]nv", "cat .e[n]v.*", "cat .[e]nv",
                                     "for f in .[^x]nv; do cat \"$f\"; done", "cat ./.[[:lower:]]nv.local"])
def test_the_issue_s_bracket_examples_are_denied(project: Path, command: str) -> None:
    for mode in ("default", "bypassPermissions"):
        assert isinstance(_decide(project, command, mode), PermissionDeny), (command, mode)


@pytest.mark.parametrize("command", ["shopt -s dotglob; cat *", "GLOBIGNORE=x; cat *", "cat [[=e=]]nv", "cat .[[.e.]]nv"])
def test_shell_options_and_unmodelled_brackets_are_not_allowed(project: Path, command: str) -> None:
    assert not isinstance(_decide(project, command, "default"), PermissionAllow), command
