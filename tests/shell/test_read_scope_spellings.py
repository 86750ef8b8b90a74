"""Issue 21 §3, family 1: what a command reads is decided by each program's grammar.

For every pattern-first reader in the registry (grep, egrep, fgrep, rg, sed, the awks,
jq), the spellings of its options are generated from its grammar: separate, attached,
``=``, abbreviated and clustered values; flags of this program that another takes a value
for. In each, a file outside the project must be in the read plan, and a file a Read deny
rule names must be denied in every mode, bypassPermissions included.
"""

from __future__ import annotations

import asyncio
import shlex
from pathlib import Path

import pytest

from nb_agent.abort import AbortController
from nb_agent.permissions import RuleBasedPolicy
from nb_agent.permissions.types import PermissionAsk, PermissionDeny
from nb_agent.shell.command_parts import analyse_command
from nb_agent.shell.programs import PROGRAMS, ProgramSpec
from nb_agent.shell.read_scope import bash_read_plan
from nb_agent.testing import option_spellings as spellings
from nb_agent.tools.base import ToolSession, ToolUseContext
from nb_agent.tools.bash import BashTool

SECRET = "/outside/secret"
PATTERN_FIRST = sorted(
    (spec for spec in PROGRAMS.values() if spec.operands == "pattern_then_paths" and spec.options is not None),
    key=lambda spec: spec.name,
)


def _pattern_variants(spec: ProgramSpec) -> list[list[str]]:
    """The pattern given by an option in every spelling, then a path operand."""
    out = []
    for option in sorted(spec.pattern_options & spec.text_options):
        for fragment in spellings.value_spellings(spec, option, "."):
            out.append([spec.name, *fragment, SECRET])
    return out


def _flag_variants(spec: ProgramSpec) -> list[list[str]]:
    """A flag of this program (that some program takes a value for), a path, then the
    pattern through an option: the path is an operand, not the flag's value."""
    grammar = spec.options
    assert grammar is not None
    giving = sorted(spec.pattern_options & spec.text_options)
    if not giving:
        return []
    pattern = spellings.value_spellings(spec, giving[0], "x")[0]
    out = []
    for flag in sorted(grammar.flags - spec.names_from_file - {"--help", "-h", "--version", "-V", "--files"}):
        for fragment in spellings.flag_spellings(spec, flag):
            # Options end at the first operand for some programs (awk): the pattern first.
            rest = [*pattern, SECRET] if grammar.stop_at_operand else [SECRET, *pattern]
            out.append([spec.name, *fragment, *rest])
    return out


def _valued_variants(spec: ProgramSpec) -> list[list[str]]:
    """Every other option with a value, in every spelling, then pattern and path."""
    grammar = spec.options
    assert grammar is not None
    out = []
    others = sorted(grammar.valued - spec.pattern_options - spec.names_from_file)
    for option in others:
        for fragment in spellings.value_spellings(spec, option, "1"):
            out.append([spec.name, *fragment, "x", SECRET])
    for option in sorted(spec.pattern_options - spec.text_options):  # `-f FILE`: the file is read
        for fragment in spellings.value_spellings(spec, option, SECRET):
            out.append([spec.name, *fragment, "notes.txt"])
    return out


VARIANTS = [
    argv
    for spec in PATTERN_FIRST
    for argv in (*_pattern_variants(spec), *_flag_variants(spec), *_valued_variants(spec))
]


def test_the_variants_cover_every_pattern_first_reader() -> None:
    assert {spec.name for spec in PATTERN_FIRST} >= {"grep", "egrep", "fgrep", "rg", "sed", "awk", "jq"}
    assert len(VARIANTS) > 500


def _reads(command: str, project: Path) -> set[Path]:
    plan = bash_read_plan(analyse_command(command), cwd=project, project_dir=project, home=project / "home", env={})
    assert plan.unknown is None, (command, plan.unknown)
    return {read.path for read in plan.reads}


@pytest.mark.parametrize("argv", VARIANTS, ids=shlex.join)
def test_the_file_after_any_option_spelling_is_read(argv: list[str], tmp_path: Path) -> None:
    command = shlex.join(argv)
    assert Path(SECRET) in _reads(command, tmp_path), command


BASH = BashTool()


def _decide(project: Path, command: str, mode: str) -> object:
    policy = RuleBasedPolicy(project_dir=project, home=project / "home", mode=mode, deny=["Read(./.env)"])  # type: ignore[arg-type]
    ctx = ToolUseContext(abort_controller=AbortController(), session=ToolSession(cwd=project))
    return asyncio.run(policy.decide(BASH, BASH.parse_input({"command": command}), ctx))


DENY_VARIANTS = [argv for argv in VARIANTS if SECRET in argv][::7]


@pytest.mark.parametrize("mode", ["default", "bypassPermissions"])
@pytest.mark.parametrize("argv", DENY_VARIANTS, ids=shlex.join)
def test_a_read_deny_rule_holds_in_every_spelling_and_mode(argv: list[str], mode: str, tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("KEY=1\n")
    (tmp_path / "notes.txt").write_text("x\n")
    command = shlex.join([".env" if word == SECRET else word for word in argv])
    assert isinstance(_decide(tmp_path, command, mode), PermissionDeny), command


@pytest.mark.parametrize(
    "command",
    ["grep -e. .env", "grep -e . .env", "grep --regexp=. .env", "grep --reg . .env", "grep -ie. .env",
     "grep -F .env -e x", "grep -rf.env x", "sed -e p .env", "sed --expr=p .env", "sed -ne p .env",
     "jq -n --rawfile a .env .", "jq --slurpfile a .env -n .", "rg -e. .env", "rg -ie. .env", "awk -F: 1 .env",
     "awk -v x=1 1 .env", "egrep -e. .env", "POSIXLY_CORRECT=1 grep x notes.txt .env -e y",
     "xargs -a notes.txt cat .env", "file -f notes.txt .env", "tar -cf /dev/null -T notes.txt .env"],
)
def test_the_issue_s_examples_are_denied(command: str, tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("KEY=1\n")
    (tmp_path / "notes.txt").write_text("x\n")
    for mode in ("default", "acceptEdits", "bypassPermissions", "plan"):
        assert isinstance(_decide(tmp_path, command, mode), PermissionDeny), (command, mode)


def test_a_tree_read_beside_a_file_list_still_asks_in_bypass_mode(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("KEY=1\n")
    decision = _decide(tmp_path, "grep -r --exclude-from=notes.txt KEY .", "bypassPermissions")
    assert isinstance(decision, PermissionAsk) and not decision.hook_may_allow, decision
