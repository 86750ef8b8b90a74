"""Family 3: an awk program is read-only only when it is for every awk (gawk, mawk, BWK)."""

from __future__ import annotations

import shlex

import pytest

from nb_agent.shell.read_only import is_read_only_command
from nb_agent.shell.read_only_scripts import awk_program_is_safe

# What a program may do that is not reading its input: each is wrapped in several
# shapes below (after a regex/division ambiguity, in a string context, after a comment).
PAYLOADS = (
    '"id" | getline x',
    '"id" | getline',
    "getline < \"/etc/passwd\"",
    "getline line < ARGV[1]",
    'print | "sh"',
    'print $0 | "cat 1>&2"',
    'printf "x" | "sh"',
    'print > "out.txt"',
    'print >> "out.txt"',
    'printf "%s", $1 > "/dev/stderr"',
    "print $1 > $2",
    'system("touch X")',
    'system ("touch X")',
    'f = "sys" "tem"; @f("id")',
    '@include "x"',
    '@load "filefuncs"',
    'print |& "/inet/tcp/0/127.0.0.1/9"',
    '"/inet/tcp/0/127.0.0.1/9" |& getline',
    'print ENVIRON["HOME"] > ENVIRON["OUT"]',
    'ARGV[1] = "/etc/shadow"; ARGC = 2',
    'PROCINFO["sorted_in"] = "f"',
)
SHAPES = (
    "{}",
    "BEGIN {{ {} }}",
    "x++ / 1; {}",
    "x++ / 1; {}; y = 2 / 1",
    "x-- / 2; {} # /",
    "a = b++ /1/ {}",
    "{{ n = $1 / 2 }} {{ {} }}",
    "/[/]/ {{ {} }}",
    '/a"/ {{ {} }}',
    'BEGIN {{ s = "\\\\"; {} }}',
    'BEGIN {{ s = "\t"; {} }}',
    "BEGIN {{ x = 1 \\\n; {} }}",
    "# comment\n{{ {} }}",
    "$1 ~ /x/ {{ {} }}",
)


@pytest.mark.parametrize("payload", PAYLOADS)
def test_program_that_runs_writes_or_reads_elsewhere_is_refused(payload: str) -> None:
    for shape in SHAPES:
        program = shape.format(payload)
        assert not awk_program_is_safe(program), program
        for awk in ("awk", "gawk", "mawk", "nawk"):
            assert not is_read_only_command(f"{awk} {shlex.quote(program)} data.txt"), program


@pytest.mark.parametrize(
    "program",
    [
        "x++ / 1; y = 1",  # division to gawk and BWK awk; refused as ambiguous
        "x-- / 2",
        "a = b++ /1/ 2",
        '/[/]/ { print }',  # BWK awk ends the regex at the bracketed slash
        '/a"/ { print }',
        'BEGIN { s = "a\\\nb" }',  # a continued string: awks disagree
        "{ print \\\"x\\\" }",
    ],
)
def test_ambiguous_lexing_is_refused(program: str) -> None:
    assert not awk_program_is_safe(program)


@pytest.mark.parametrize(
    "option", ["-f prog.awk", "-e '{print}'", "-i inplace", "-l ext", "-W exec=x", "-o out", "-p", "-d",
               "--exec=x", "-E prog", "--load=x", "--profile", "--dump-variables"],
)
def test_options_that_load_code_or_write_are_refused(option: str) -> None:
    assert not is_read_only_command(f"awk {option} '{{print}}' data.txt")


@pytest.mark.parametrize(
    "program",
    [
        "{print $1, $3}",
        "{ if ($3 > 100) print $1 }",
        "NR > 1 { sum += $2 } END { print sum / (NR - 1) }",
        "/error|warn/ {print $2}",
        "$2 ~ /^[0-9]+$/ { n++ } END { print n }",
        "{ n = $1 / 2; print n }",
        '{ printf "%s\\n", $1 }',
        "{ print ($1 > 2) }",
        "BEGIN { FS = \",\" } { print $2 }",
        "length($0) > 80",
    ],
)
def test_plain_programs_stay_read_only(program: str) -> None:
    assert awk_program_is_safe(program)
    assert is_read_only_command(f"awk {shlex.quote(program)} data.txt")
