"""Issue 21 §3: the read plan against what the real program opens, under strace.

Every reader in the registry that is installed here is run, through real bash, on a
scratch tree with option spellings generated from its grammar (separate, attached, ``=``,
abbreviated and clustered values; every flag and valued option but those that write or
run programs; recursion and link following; bash globs). The read-only ones run unasked
when their plan is within Read's scope; every plan also holds Read deny rules in every
mode (the shell guard), so the others are run too. ``strace -f -y`` records every file the program opened; the test fails when it
opened a file (or listed a directory) under the scratch tree that its read plan did not
name. The tree holds a file outside the project, links to it, and a denied-looking
``.env``, so an option spelling the plan misreads shows up as an unnamed open.

``NB_AGENT_STRACE_EVERY`` (default 1) runs only every Nth variant, for a quicker local run.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from nb_agent.shell.command_parts import analyse_command
from nb_agent.shell.programs import PROGRAMS, ProgramSpec
from nb_agent.shell.read_plan import ReadPlan
from nb_agent.shell.read_scope import bash_read_plan
from nb_agent.testing import option_spellings as spellings

STRACE = shutil.which("strace")
BASH = shutil.which("bash")
EVERY = int(os.environ.get("NB_AGENT_STRACE_EVERY", "1"))
RUN_TIMEOUT_SECONDS = 20  # generous: only tells a program that hung from one that finished
pytestmark = pytest.mark.skipif(STRACE is None or BASH is None, reason="needs strace and bash (.ci/run installs strace)")


OUTSIDE = "../outside/secret.txt"
SKIP_FLAGS = {"--help", "-h", "--version", "-V", "--files", "--type-list", "--pcre2-version", "--debug", "--trace"}
GLOBS = ("cat .[^x]nv", "cat .[!x]nv", "cat .[[:alpha:]]nv", "cat .e*", "head -n1 .[e]nv", "wc -l .e?v *.txt",
         "grep -h x .[^.]*", "cat src/*.py", "cat [.]env", "cat .en[v")


def _installed(spec: ProgramSpec) -> bool:
    return shutil.which(spec.name, path=_path()) is not None


def _path() -> str:
    # rg comes with the test extras, in the environment's bin directory
    return os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])


# A pattern or program each reader accepts and that reads nothing more.
PROGRAM_TEXT = {"sed": "p", "awk": "1", "gawk": "1", "mawk": "1", "nawk": "1", "jq": "."}


def _variants(spec: ProgramSpec) -> list[str]:
    grammar = spec.options
    pattern_first = spec.operands == "pattern_then_paths"
    program = PROGRAM_TEXT.get(spec.name, "x")
    lead = [program] if pattern_first else []
    found: list[list[str]] = [[spec.name, *lead, OUTSIDE], [spec.name, *lead, "notes.txt", ".env"]]
    if grammar is not None:
        giving = sorted(spec.pattern_options & spec.text_options)
        for option in giving:
            for fragment in spellings.value_spellings(spec, option, PROGRAM_TEXT.get(spec.name, ".")):
                found.append([spec.name, *fragment, OUTSIDE])
        pattern = spellings.value_spellings(spec, giving[0], program)[0] if giving else []
        for flag in sorted(grammar.flags - SKIP_FLAGS - spec.names_from_file - spec.writes - spec.runs):
            for fragment in spellings.flag_spellings(spec, flag):
                rest = [*pattern, OUTSIDE] if grammar.stop_at_operand or not pattern else [OUTSIDE, *pattern]
                found.append([spec.name, *fragment, *(lead if not pattern else []), *rest])
        for option in sorted(grammar.valued - spec.pattern_options - spec.names_from_file - spec.writes - spec.runs):
            for fragment in spellings.value_spellings(spec, option, "1"):
                found.append([spec.name, *fragment, *lead, OUTSIDE])
        for option in sorted(spec.pattern_options - spec.text_options):
            for fragment in spellings.value_spellings(spec, option, OUTSIDE):
                found.append([spec.name, *fragment, "notes.txt"])
    for option in sorted(spec.recursive | spec.follows_links):
        found.append([spec.name, option, *lead, "."])
        found.append([spec.name, option, *lead])
    if spec.always_recursive:
        found.append([spec.name, *lead])
    return [shlex.join(argv) for argv in found]


READERS = sorted(
    # Readers: read-only programs that read files (not git, whose repository checks are
    # tested on real repositories; not tools allowed only to print their version).
    (spec for spec in PROGRAMS.values()
     if spec.access != "none" and spec.read_only not in ("never", "version") and spec.name != "git"),
    key=lambda spec: spec.name,
)
VARIANTS = [command for spec in READERS if _installed(spec) for command in _variants(spec)] + list(GLOBS)
VARIANTS = VARIANTS[::EVERY]


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("strace")
    project, outside = root / "project", root / "outside"
    (project / "src" / "deep").mkdir(parents=True)
    (outside / "keys").mkdir(parents=True)
    (outside / "secret.txt").write_text("x secret\n")
    (outside / "keys" / "id_rsa").write_text("x key\n")
    (project / "notes.txt").write_text("x notes\n1\n")
    (project / ".env").write_text("x env\n")
    (project / "a.txt").write_text("x a\n")
    (project / "src" / "a.py").write_text("x = 1\n")
    (project / "src" / "deep" / "b.py").write_text("x = 2\n")
    (project / "docs").symlink_to(outside / "keys")  # links the repository ships
    (project / "token").symlink_to(outside / "secret.txt")
    home = Path(tmp_path_factory.mktemp("home"))  # outside the judged tree: rg, git read ~ config
    return {"root": root, "project": project, "home": home}


_OPEN = re.compile(r"^(\d+)\s+(?:openat|open|openat2)\(.*\)\s+=\s+\d+<(.+)>$")
_EXEC = re.compile(r"^(\d+)\s+execve\(.*\)\s+=\s+0$")


def _opened(command: str, tree: dict[str, Path], log: Path) -> set[str]:
    """Files and directories the program (not bash's own globbing before it) opened."""
    env = {"PATH": _path(), "HOME": str(tree["home"]), "LC_ALL": "C", "TERM": "dumb"}
    argv = [STRACE, "-f", "-y", "-qq", "-e", "trace=openat,open,openat2,execve", "-o", str(log), BASH, "-c", command]
    subprocess.run(argv, cwd=tree["project"], env=env, capture_output=True, timeout=RUN_TIMEOUT_SECONDS,
                   stdin=subprocess.DEVNULL)
    started: set[str] = set()
    opened: set[str] = set()
    for line in log.read_text(errors="replace").splitlines():
        if match := _EXEC.match(line):
            started.add(match.group(1))
        elif (match := _OPEN.match(line)) and match.group(1) in started:
            opened.add(match.group(2))
    root = str(tree["root"].resolve())
    return {path for path in opened if path == root or path.startswith(root + os.sep)}


def _covered(path: str, plan: ReadPlan) -> bool:
    is_directory = os.path.isdir(path)
    for read in plan.reads:
        named = os.path.realpath(read.path)
        if path == named:
            return True
        below = path.startswith(named.rstrip(os.sep) + os.sep)
        if below and (read.kind == "tree" or (read.kind == "names" and is_directory)):
            return True
        if is_directory and named.startswith(path.rstrip(os.sep) + os.sep):
            return True  # the way to a named file (gzip opens the file's directory first)
    return False


def test_every_installed_reader_is_run() -> None:
    names = {command.split()[0] for command in VARIANTS}
    assert {"grep", "rg", "sed", "awk", "jq", "cat", "head", "ls", "find", "du"} <= names
    assert len(VARIANTS) > 300 // EVERY


@pytest.mark.parametrize("command", VARIANTS)
def test_the_program_opens_only_what_the_plan_names(command: str, tree: dict[str, Path], tmp_path: Path) -> None:
    project = tree["project"]
    plan = bash_read_plan(analyse_command(command), cwd=project, project_dir=project, home=tree["home"], env={})
    if plan.unknown is not None:
        return  # the fast path asks; nothing runs unasked
    opened = _opened(command, tree, tmp_path / "strace.log")
    unnamed = sorted(path for path in opened if not _covered(path, plan))
    assert unnamed == [], f"{command}: opened {unnamed}, plan named {[str(r.path) for r in plan.reads]}"
