"""Issue 21 §3, families 2 and 4: recursion through links, and lists of files.

A reader that follows symbolic links while it recurses reads what every link below the
tree points to; the project ships a link to a file outside it, so each link-following
spelling (from the registry: every program's follow options, abbreviated and clustered)
must list the target. A program that takes its list of files from a file or its input
cannot be judged before it runs: its plan is unknown (the fast path asks).
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path

import pytest

from nb_agent.shell.command_parts import analyse_command
from nb_agent.shell.programs import PROGRAMS
from nb_agent.shell.read_plan import ReadPlan
from nb_agent.shell.read_scope import bash_read_plan
from nb_agent.testing import option_spellings as spellings


@pytest.fixture
def world(tmp_path: Path) -> dict[str, Path]:
    project, outside = tmp_path / "project", tmp_path / "outside"
    (project / "docs").mkdir(parents=True)
    (outside / "keys").mkdir(parents=True)
    (outside / "keys" / "id_rsa").write_text("KEY\n")
    (outside / "token").write_text("TOKEN\n")
    (project / "docs" / "keys").symlink_to(outside / "keys")  # a link the repository ships
    (project / "token").symlink_to(outside / "token")
    (project / "notes.txt").write_text("notes\n")
    return {"project": project, "outside": outside}


def _plan(command: str, project: Path) -> ReadPlan:
    return bash_read_plan(analyse_command(command), cwd=project, project_dir=project, home=project / "home", env={})


def _reads(plan: ReadPlan) -> set[str]:
    return {os.path.realpath(read.path) for read in plan.reads}


def _follow_variants() -> list[str]:
    found = []
    for spec in sorted(PROGRAMS.values(), key=lambda spec: spec.name):
        for option in sorted(spec.follows_links):
            if spec.options is not None and option in spec.options.names:
                fragments = spellings.flag_spellings(spec, option)
            else:
                fragments = [[option]]
            pattern = ["x"] if spec.operands == "pattern_then_paths" else []
            recursion = [] if spec.always_recursive or option in spec.recursive else sorted(spec.recursive)[:1]
            for fragment in fragments:
                found.append(shlex.join([spec.name, *recursion, *fragment, *pattern, "."]))
        if spec.always_follows_links:
            found.append(shlex.join([spec.name, "-r", "out.bin", "."]))
    return found


FOLLOW_VARIANTS = _follow_variants()


def test_every_link_follower_is_covered() -> None:
    names = {command.split()[0] for command in FOLLOW_VARIANTS}
    assert {"grep", "rg", "find", "ls", "du", "tree", "cp", "tar", "rsync", "zip", "scp"} <= names


@pytest.mark.parametrize("command", FOLLOW_VARIANTS)
def test_following_links_reads_their_targets(world: dict[str, Path], command: str) -> None:
    plan = _plan(command, world["project"])
    assert plan.unknown is None, plan.unknown
    reads = _reads(plan)
    assert str(world["outside"] / "keys") in reads, (command, reads)
    assert str(world["outside"] / "token") in reads, (command, reads)


@pytest.mark.parametrize("command", ["grep -r x .", "rg x", "ls -R", "find . -name x", "du -a", "grep -rn x docs"])
def test_recursion_without_following_reads_no_target(world: dict[str, Path], command: str) -> None:
    plan = _plan(command, world["project"])
    assert plan.unknown is None
    assert str(world["outside"] / "keys" / "id_rsa") not in _reads(plan)


def test_a_bounded_walk_past_its_bound_is_unknown(world: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    import nb_agent.shell.read_scope as read_scope

    monkeypatch.setattr(read_scope, "link_targets", lambda roots: None)
    assert _plan("grep -R x .", world["project"]).unknown is not None


LIST_COMMANDS = [
    "sort --files0-from=list", "sort --files0=list", "wc --files0-from list", "wc --files0 list", "du --files0-from=list",
    "file -f list", "file --files-from list", "file -bf list", "md5sum -c sums", "sha256sum --check sums",
    "b2sum -wc sums", "grep --exclude-from=list -r x", "grep --exclude-f list -r x", "find . -files0-from list",
    "tar -cf /dev/null -T list", "tar --files-from=list -cf x", "rsync --files-from=list . /tmp/x", "zip out -@",
    "xargs cat < list", "cat list | xargs grep x", "git diff --pathspec-from-file=list", "cpio -o < list",
    "some-tool --files-from=list",
]


@pytest.mark.parametrize("command", LIST_COMMANDS)
def test_a_list_of_files_from_a_file_or_input_is_unknown(world: dict[str, Path], command: str) -> None:
    assert _plan(command, world["project"]).unknown is not None, command


@pytest.mark.parametrize("command", ["grep -r --exclude-from=list SECRET .", "tar -cf /dev/null -T list .env",
                                     "xargs -a list cat .env", "file -f list .env"])
def test_a_list_does_not_hide_the_paths_the_command_names(world: dict[str, Path], command: str) -> None:
    """The shell guard still holds those to Read's deny rules, in every mode."""
    plan = _plan(command, world["project"])
    assert plan.unknown is not None
    assert {os.path.realpath(world["project"] / name) for name in (".", ".env")} & _reads(plan), (command, plan)
