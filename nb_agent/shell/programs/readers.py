"""Programs that read files: text tools, listers, viewers.

Most have no option that writes a file or runs a program, so any arguments will do for
the read-only check; the others (``sort -o``, ``tree -o``, ``find -exec``, ``file -C``)
are checked option by option. What they read is the read scope's question: their
operands' contents, or only names and metadata (``ls``, ``stat``, ``find``).
"""

from __future__ import annotations

from collections.abc import Sequence

from nb_agent.shell.options import Options, parse_options
from nb_agent.shell.parse_words import Word
from nb_agent.shell.programs.builtins import one_word
from nb_agent.shell.programs.spec import ProgramSpec, specs

__all__ = ["READERS"]

# --- checks --------------------------------------------------------------------------

_UNIQ = Options.of(
    flags="-c --count -d --repeated -D -u --unique -i --ignore-case -z --zero-terminated "
    "--help --version",
    valued="-f --skip-fields -s --skip-chars -w --check-chars",
    optional="--all-repeated --group",
)
_DATE = Options.of(
    flags="-u --utc --universal -R --rfc-email --debug --help --version",
    valued="-d --date -f --file -r --reference --rfc-3339 -s --set",
    optional="-I --iso-8601",
)


def _uniq(args: Sequence[Word]) -> bool:
    parsed = parse_options(args, _UNIQ)  # a second operand is an output file
    return parsed is not None and len(parsed.positionals) <= 1 and all(
        one_word(word) for word in parsed.positionals  # `uniq *.txt` may be two files
    )


def _date(args: Sequence[Word]) -> bool:
    parsed = parse_options(args, _DATE)  # an operand not starting with `+` sets the clock
    return parsed is not None and not parsed.has("-s", "--set") and all(
        arg.is_literal and arg.value.startswith("+") for arg in parsed.positionals
    )


_XXD_VALUED = frozenset({"-c", "-cols", "-g", "-groupsize", "-l", "-len", "-o", "-offset",
                         "-s", "-seek", "-n", "-name"})


def _xxd(args: Sequence[Word]) -> bool:
    # Options end at the input file; any word after it, `-p` included, names the output.
    index = 0
    while index < len(args):
        arg = args[index]
        if not arg.is_literal and arg.may_be_option:
            return False
        if not (arg.is_literal and arg.value.startswith("-") and len(arg.value) > 1):
            # The input file, one word (a glob may name two), and nothing after it.
            return index == len(args) - 1 and one_word(arg)
        index += 2 if arg.value in _XXD_VALUED else 1
    return True


_FIND_RUNS = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
_FIND_WRITES = frozenset({"-delete", "-fprint", "-fprint0", "-fprintf", "-fls"})


def _find(args: Sequence[Word]) -> bool:
    for arg in args:
        if not arg.is_literal and arg.may_be_option:
            return False  # `find "$dir"` could be `find -delete`
        if arg.is_literal and (arg.value in _FIND_RUNS or arg.value in _FIND_WRITES):
            return False
    return True


# --- specs ---------------------------------------------------------------------------

_DIFFER = "Files differ"

READERS: tuple[ProgramSpec, ...] = (
    *specs(
        "cat head tail cut tr column nl od hexdump sum tac rev paste comm join fold expand "
        "unexpand strings zcat bzcat xzcat",
        read_only="always",
    ),
    # `-c SUMS` reads every file SUMS names.
    *specs(
        "md5sum sha1sum sha224sum sha256sum sha384sum sha512sum b2sum cksum",
        read_only="always",
        names_from_file=frozenset({"-c", "--check"}),
    ),
    ProgramSpec(name="diff", read_only="always", benign_exit_1=_DIFFER),
    ProgramSpec(name="cmp", read_only="always", benign_exit_1=_DIFFER),
    ProgramSpec(name="wc", read_only="always", names_from_file=frozenset({"--files0-from"})),
    ProgramSpec(
        name="ls", read_only="always", access="names", lists_working_directory=True,
        recursive=frozenset({"-R", "--recursive"}), follows_links=frozenset({"-L", "--dereference"}),
    ),
    ProgramSpec(
        name="du", read_only="always", access="names", lists_working_directory=True, always_recursive=True,
        follows_links=frozenset({"-L", "--dereference"}), names_from_file=frozenset({"--files0-from"}),
    ),
    *specs("stat realpath readlink df", read_only="always", access="names"),
    ProgramSpec(
        name="sort",
        options=Options.of(
            flags="-b -d -f -g -i -M -h -n -R -r -V -c -C -m -s -u -z --ignore-leading-blanks "
            "--dictionary-order --ignore-case --general-numeric-sort --ignore-nonprinting "
            "--month-sort --human-numeric-sort --numeric-sort --random-sort --reverse "
            "--version-sort --check --merge --stable --unique --zero-terminated --debug --help --version",
            valued="-k --key -t --field-separator -S --buffer-size -T --temporary-directory "
            "--parallel --batch-size --files0-from --random-source --sort -o --output --compress-program",
        ),
        writes=frozenset({"-o", "--output"}),
        runs=frozenset({"--compress-program"}),
        read_only="options",
        names_from_file=frozenset({"--files0-from"}),
    ),
    ProgramSpec(name="uniq", options=_UNIQ, read_only="check", check=_uniq),
    ProgramSpec(name="date", options=_DATE, writes=frozenset({"-s", "--set"}), read_only="check", check=_date),
    ProgramSpec(name="xxd", read_only="check", check=_xxd),
    ProgramSpec(
        name="find",
        runs=_FIND_RUNS,
        writes=_FIND_WRITES,
        read_only="check",
        check=_find,
        access="names",
        lists_working_directory=True,
        always_recursive=True,
        follows_links=frozenset({"-L", "-follow"}),
        names_from_file=frozenset({"-files0-from"}),
        runs_argv_tail=True,
        benign_exit_1="Some directories were inaccessible",
    ),
    ProgramSpec(
        # `-o file` writes; `-R` writes 00Tree.html in every directory. tree takes option
        # values from the following words, so no letter of a cluster is skipped as a value.
        name="tree",
        writes=frozenset({"-o", "--output", "-R"}),
        read_only="unless_denied",
        access="names",
        lists_working_directory=True,
        always_recursive=True,
        follows_links=frozenset({"-l"}),
    ),
    ProgramSpec(
        name="file",
        options=Options.of(valued="-m -f -F -e -P"),
        writes=frozenset({"-C", "--compile"}),  # writes magic.mgc
        read_only="unless_denied",
        names_from_file=frozenset({"-f", "--files-from"}),
    ),
)
"""File readers and listers."""
