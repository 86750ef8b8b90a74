"""Shell builtins and small programs that print something about the system.

``test``/``[``/``[[``, ``printf``, ``read`` and ``hostname`` need code to tell reading
from changing; ``cd``/``pushd``/``popd`` move the shell.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from nb_agent.shell.options import Options, parse_options
from nb_agent.shell.parse_words import Word
from nb_agent.shell.programs.spec import ProgramSpec, specs
from nb_agent.shell.variables import is_safe_variable_name

__all__ = ["BUILTINS", "literal_values", "one_word"]


def literal_values(args: Sequence[Word]) -> list[str] | None:
    """The words' values when every one is literal, else ``None``."""
    if not all(arg.is_literal for arg in args):
        return None
    return [arg.value for arg in args]


def one_word(word: Word) -> bool:
    """A word the shell cannot turn into several: no unquoted expansion, glob or braces."""
    return not (word.may_split or word.has_glob or word.has_brace)


# --- test ----------------------------------------------------------------------------

_ARITHMETIC_TESTS = frozenset({"-eq", "-ne", "-lt", "-le", "-gt", "-ge"})
_TEST_UNARY = frozenset(
    "-a -b -c -d -e -f -g -h -k -n -o -p -r -s -t -u -w -x -z -G -L -N -O -S".split()
)
_TEST_BINARY = frozenset("= == != < > -nt -ot -ef".split()) | _ARITHMETIC_TESTS
_INTEGER = re.compile(r"-?[0-9]+")


def _test(args: Sequence[Word]) -> bool:
    """``test``/``[``: `-v 'a[$(cmd)]'` and `-R` evaluate an array subscript, running it.

    test picks its operators by counting arguments *after* expansion, so a variable
    holding `-v` (a loop can set one) becomes that operator: expansions are allowed only
    as operands of a literal operator, in the fixed shapes `OP X` and `X OP Y`.
    """
    words = list(args)
    if words and words[-1].is_literal and words[-1].value == "]":
        words = words[:-1]  # `[ ... ]`
    if any(word.is_literal and word.value in ("-v", "-R") for word in words):
        return False
    if all(word.is_literal for word in words):
        return True
    if not all(word.is_literal or one_word(word) for word in words):
        return False
    if words and words[0].is_literal and words[0].value == "!":
        words = words[1:]
    if len(words) == 1:
        return True
    if len(words) == 2:
        return words[0].is_literal and words[0].value in _TEST_UNARY
    if len(words) == 3:
        return words[1].is_literal and words[1].value in _TEST_BINARY
    return False


def _test_extended(args: Sequence[Word]) -> bool:
    """``[[ ... ]]`` fixes its operators when parsed, but `-eq` and friends evaluate their
    operands as arithmetic (`[[ x -eq 1 ]]` with x='a[$(cmd)]' runs cmd): integers only."""
    if any(arg.is_literal and arg.value in ("-v", "-R") for arg in args):
        return False
    if not any(arg.is_literal and arg.value in _ARITHMETIC_TESTS for arg in args):
        return True
    operands = [arg for arg in args if not (arg.is_literal and (
        arg.value in _ARITHMETIC_TESTS or arg.value in ("]]", "&&", "||", "!", "(", ")")))]
    return all(arg.is_literal and _INTEGER.fullmatch(arg.value) for arg in operands)


# --- printf, read, hostname ------------------------------------------------------------


def _printf(args: Sequence[Word]) -> bool:
    # `printf -v NAME` assigns a shell variable (PATH, or `a[$(cmd)]`).
    first = args[0] if args else None
    if first is None or not first.may_be_option:
        return True
    return first.is_literal and not first.value.startswith("-v")


_READ = Options.of(flags="-r -s", valued="-d -n -N -p -t -u -a")


def _read(args: Sequence[Word]) -> bool:
    parsed = parse_options(args, _READ)
    if parsed is None:
        return False
    names = [*parsed.values("-a"), *parsed.positionals]
    return all(name.is_literal and is_safe_variable_name(name.value) for name in names)


_HOSTNAME_FLAGS = frozenset(
    {"-f", "-s", "-i", "-I", "-d", "-A", "--fqdn", "--long", "--short", "--ip-address",
     "--all-ip-addresses", "--domain", "--all-fqdns"}
)


def _hostname(args: Sequence[Word]) -> bool:
    values = literal_values(args)  # a name or `-F file` sets the host name
    return values is not None and all(value in _HOSTNAME_FLAGS for value in values)


_CONDITION = "Condition is false"

BUILTINS: tuple[ProgramSpec, ...] = (
    *specs("test [", read_only="check", check=_test, access="names", benign_exit_1=_CONDITION),
    ProgramSpec(name="[[", read_only="check", check=_test_extended, access="names", benign_exit_1=_CONDITION),
    ProgramSpec(name="printf", read_only="check", check=_printf, operands="none", access="none"),
    ProgramSpec(name="read", options=_READ, read_only="check", check=_read, operands="none", access="none"),
    ProgramSpec(name="hostname", read_only="check", check=_hostname, operands="none", access="none"),
    # Print something about the shell or the system; no file operands.
    *specs(
        "echo pwd whoami id groups uname nproc free ps seq true false : sleep printenv uptime "
        "arch locale getconf lscpu tty cal numfmt dirs whereis which type basename dirname",
        read_only="always", operands="none", access="none",
    ),
    # They change only the shell's directory (see the `cd` + `git` rule of the classifier);
    # the directory counts as read, whole, like any operand of an unknown program.
    *(ProgramSpec(name=name, read_only="always", changes_directory=name) for name in ("cd", "pushd", "popd")),
)
"""Builtins and system-information programs."""
