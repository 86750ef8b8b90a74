"""Is a Bash command read-only? The fast path that skips the permission prompt (SPEC §8).

The command is parsed (:mod:`nb_agent.tools.bash.parse`), never matched with regexes,
and judged as a whole: it is read-only only when every simple command in it, after
stripping wrappers (``timeout``, ``nice``, ``time``, ``stdbuf``) and harmless prefixed
assignments, is on the allow-list of :mod:`nb_agent.tools.bash.read_only_commands` with
safe arguments, and nothing around those commands can write or run code. Anything not
understood makes the answer ``False``: a wrong ``False`` costs one prompt, a wrong
``True`` runs a command nobody approved.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from nb_agent.tools.bash.parse import (
    Assignment,
    ParsedCommand,
    Redirect,
    SimpleCommand,
    Word,
    parse_command,
)
from nb_agent.tools.bash.read_only_args import OptionSpec, parse_options
from nb_agent.tools.bash.read_only_commands import is_safe_variable_name, rule_for

__all__ = ["is_read_only_command"]

# Control characters other than tab and newline: bash and tree-sitter may split them
# differently, and no legitimate command needs them.
_CONTROL_CHARACTERS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_NULL_SINKS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr"})
_OUTPUT_OPERATORS = frozenset({">", ">>", "&>", "&>>", ">|", ">&"})
_DIRECTORY_CHANGERS = frozenset({"cd", "pushd", "popd"})
_DURATION = re.compile(r"[0-9]+(\.[0-9]+)?[smhd]?")
_NICENESS = re.compile(r"-[0-9]+|--?adjustment=[+-]?[0-9]+")

_TIMEOUT = OptionSpec.of(
    flags="--preserve-status --foreground -v --verbose",
    valued="-s --signal -k --kill-after",
    stop_at_positional=True,
)
_NICE = OptionSpec.of(valued="-n --adjustment", stop_at_positional=True)
_TIME = OptionSpec.of(flags="-p", stop_at_positional=True)
_STDBUF = OptionSpec.of(valued="-i -o -e --input --output --error", stop_at_positional=True)
_XARGS = OptionSpec.of(
    flags="-0 --null -r --no-run-if-empty -t --verbose -x --exit -p --interactive --show-limits",
    valued="-a --arg-file -d --delimiter -E -I -L -n --max-args -P --max-procs -s --max-chars",
    attached="-e -i -l --eof --replace --max-lines",
    stop_at_positional=True,
)  # no --process-slot-var (sets a variable in the children)


def is_read_only_command(command: str) -> bool:
    """True only when running ``command`` cannot change anything: files, processes, config.

    Every simple command must be allow-listed with safe arguments (``ls``, ``grep``,
    ``git log``, ``sed -n`` without ``w``/``e``, ``find`` without ``-exec``/``-delete``,
    ...); pipelines and lists (``|``, ``&&``, ``||``, ``;``, ``&``), subshells, brace
    groups, ``if``/``case``/loops are read-only when every command inside is. Never
    read-only: writing redirections (``>/dev/null`` and ``2>&1`` are fine), command or
    process substitution, arithmetic, function definitions, standalone assignments,
    unknown wrappers (``sudo``, ``env CMD``, ``bash -c``, ``eval``, ``xargs`` into a
    command that is not itself read-only), ``cd`` together with ``git`` (the other
    repository's hooks and config run), parse errors. An empty command is not read-only:
    there is nothing to approve.
    """
    if not command.strip() or _CONTROL_CHARACTERS.search(command):
        return False
    parsed = parse_command(command)
    if not _structure_is_safe(parsed):
        return False
    names: list[str] = []
    for simple in parsed.commands:
        if not _simple_command_is_read_only(simple, names):
            return False
    if "git" in names and _DIRECTORY_CHANGERS.intersection(names):
        return False
    return True


def _structure_is_safe(parsed: ParsedCommand) -> bool:
    """Everything around the simple commands: syntax, substitutions, redirections."""
    if (
        not parsed.analysable
        or not parsed.commands
        or parsed.has_command_substitution
        or parsed.has_process_substitution
        or parsed.has_arithmetic
        or parsed.has_unsafe_expansion
        or parsed.has_function_definition  # it may shadow an allow-listed name later
    ):
        return False
    for heredoc in parsed.heredocs:
        if not heredoc.quoted and any(char in heredoc.body for char in "$`"):
            return False  # an unquoted body is expanded (and tree-sitter misses backticks)
    if not all(_redirect_is_safe(redirect) for redirect in parsed.redirects):
        return False
    return all(is_safe_variable_name(name) for name in parsed.loop_variables)


def _redirect_is_safe(redirect: Redirect) -> bool:
    operator, target = redirect.operator, redirect.target
    if target is not None and target.value.startswith(("/dev/tcp/", "/dev/udp/")):
        return False  # bash opens a network connection
    if operator in ("<<", "<<-", ">&-", "<&-"):
        return True
    if operator in ("<", "<<<"):
        return True
    if target is None or not target.is_literal:
        return False
    if operator in (">&", "<&") and target.value.isdigit():
        return True  # duplicating a descriptor: 2>&1, >&2
    return operator in _OUTPUT_OPERATORS and target.value in _NULL_SINKS


def _assignment_is_safe(assignment: Assignment) -> bool:
    value = assignment.value
    return is_safe_variable_name(assignment.name) and (value is None or value.is_literal)


def _simple_command_is_read_only(simple: SimpleCommand, names: list[str]) -> bool:
    if not simple.argv:
        return False  # `PATH=/tmp/x` alone changes every later command
    if not all(_assignment_is_safe(assignment) for assignment in simple.assignments):
        return False
    return _argv_is_read_only(simple.argv, names)


def _argv_is_read_only(argv: Sequence[Word], names: list[str]) -> bool:
    """Check one command line as a program will see it; ``names`` collects command names."""
    stripped = _strip_wrappers(argv)
    if not stripped:
        return False
    head = stripped[0]
    if not head.is_literal or "/" in head.value or head.value.startswith("-"):
        return False  # `$cmd`, `./script`, `/tmp/ls`: not the program we know
    name = head.value
    names.append(name)
    if name == "xargs":
        return _xargs_is_read_only(stripped[1:], names)
    rule = rule_for(name)
    return rule is not None and rule(stripped[1:])


def _strip_wrappers(argv: Sequence[Word]) -> Sequence[Word] | None:
    """Drop ``timeout``, ``nice``, ``time`` and ``stdbuf``; ``None`` if one is malformed."""
    while argv and argv[0].is_literal:
        name, args = argv[0].value, argv[1:]
        if name == "timeout":
            parsed = parse_options(args, _TIMEOUT)
            if parsed is None or not parsed.positionals:
                return None
            duration = parsed.positionals[0]
            if not (duration.is_literal and _DURATION.fullmatch(duration.value)):
                return None
            argv = parsed.positionals[1:]
        elif name == "nice":
            if args and args[0].is_literal and _NICENESS.fullmatch(args[0].value):
                args = args[1:]
            parsed = parse_options(args, _NICE)
            if parsed is None:
                return None
            argv = parsed.positionals
        elif name in ("time", "stdbuf"):
            parsed = parse_options(args, _TIME if name == "time" else _STDBUF)
            if parsed is None:
                return None
            argv = parsed.positionals
        else:
            return argv
    return argv


# Stands for the words xargs reads from its input: anything at all, options included.
_UNKNOWN_WORD = Word(
    raw="<xargs input>", value="<xargs input>", is_literal=False, has_expansion=True,
    has_glob=False, may_be_option=True,
)


def _xargs_is_read_only(args: Sequence[Word], names: list[str]) -> bool:
    """``xargs [options] command...`` runs ``command`` with words from its input appended
    (or substituted for ``-I`` replace-string); those words may be options."""
    parsed = parse_options(args, _XARGS)
    if parsed is None:
        return False
    target = list(parsed.positionals)
    if not target:
        return True  # the default command is echo
    replace_values = parsed.values("-I", "-i", "--replace")
    replacing = parsed.has("-I", "-i", "--replace")
    if replacing:
        needle = replace_values[-1].value if replace_values else "{}"
        if not needle:
            return False
        target = [_UNKNOWN_WORD if needle in word.value else word for word in target]
        if target[0] is _UNKNOWN_WORD:
            return False
    else:
        target.append(_UNKNOWN_WORD)
    return _argv_is_read_only(target, names)

