"""Is a Bash command read-only? The fast path that skips the permission prompt (SPEC §8).

The command is parsed (:mod:`nb_agent.shell.parse`), never matched with regexes,
and judged as a whole: it is read-only only when every simple command in it, after
stripping wrappers (``timeout``, ``nice``, ``time``, ``stdbuf``) and harmless prefixed
assignments, is read-only with its arguments by its spec (:mod:`nb_agent.shell.programs`), and nothing around those commands can write or run code. Anything not
understood makes the answer ``False``: a wrong ``False`` costs one prompt, a wrong
``True`` runs a command nobody approved.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from nb_agent.shell.command_parts import CommandAnalysis, CommandPart, analyse_command
from nb_agent.shell.options import Options, parse_options
from nb_agent.shell.parse import Assignment, ParsedCommand, Redirect, SimpleCommand, Word
from nb_agent.shell.programs import program_spec
from nb_agent.shell.variables import is_safe_variable_name
from nb_agent.shell.wrappers import unwrap

__all__ = ["is_read_only_command", "assignment_is_safe", "part_is_read_only", "structure_is_safe"]

_NULL_SINKS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr"})
_OUTPUT_OPERATORS = frozenset({">", ">>", "&>", "&>>", ">|", ">&"})
_STANDARD_STREAMS = frozenset({"1", "2"})
# Bash opens /dev/tcp/HOST/PORT and /dev/udp/... itself; /dev, /proc and /sys hold
# devices and live kernel state. An input redirection reads a plain file or /dev/null.
_SPECIAL_INPUT_ROOTS = ("/dev", "/proc", "/sys")


def is_read_only_command(command: str) -> bool:
    """True only when running ``command`` cannot change anything: files, processes, config.

    Every simple command must be allow-listed with safe arguments (``ls``, ``grep``,
    ``git log``, ``sed -n`` without ``w``/``e``, ``find`` without ``-exec``/``-delete``,
    ...); pipelines and lists (``|``, ``&&``, ``||``, ``;``, ``&``), subshells, brace
    groups, ``if``/``case``/loops are read-only when every command inside is. Never
    read-only: writing redirections (``>/dev/null`` and ``2>&1`` are fine), input
    redirections from anything but a literal path, command or process substitution,
    arithmetic, function definitions, standalone assignments, unknown wrappers (``sudo``,
    ``env CMD``, ``bash -c``, ``eval``, ``xargs`` into a command that is not itself
    read-only), ``cd`` together with ``git`` (the other repository's hooks and config
    run), parse errors. An empty command is not read-only: there is nothing to approve.

    This is the syntactic half; which files the command reads, and where git runs, are
    checked against the session by :mod:`nb_agent.shell.read_scope`.
    """
    if not command.strip():
        return False
    analysis = analyse_command(command)
    if not structure_is_safe(analysis):
        return False
    names: list[str] = []
    if not all(part_is_read_only(part, names) for part in analysis.parts):
        return False
    # `cd elsewhere && git log` runs the other repository's hooks and configuration.
    specs = [program_spec(name) for name in names]
    return not (any(spec.uses_repository for spec in specs) and any(spec.changes_directory for spec in specs))


def part_is_read_only(part: CommandPart, names: list[str] | None = None) -> bool:
    """One simple command, on its own: allow-listed, safe arguments and redirections.

    ``names`` collects the command names seen (``xargs`` adds its target's)."""
    return _simple_command_is_read_only(part.simple, names if names is not None else [])


def structure_is_safe(analysis: CommandAnalysis) -> bool:
    """Everything around the simple commands: syntax, substitutions, redirections."""
    return analysis.understood and _structure_is_safe(analysis.parsed)


def _structure_is_safe(parsed: ParsedCommand) -> bool:
    for heredoc in parsed.heredocs:
        if not heredoc.quoted and any(char in heredoc.body for char in "$`"):
            return False  # an unquoted body is expanded (and tree-sitter misses backticks)
    if not all(_redirect_is_safe(redirect) for redirect in parsed.redirects):
        return False
    return all(is_safe_variable_name(name) for name in parsed.loop_variables)


def _redirect_is_safe(redirect: Redirect) -> bool:
    """Harmless redirections only: heredocs, here-strings, closing a descriptor, output
    to /dev/null, ``2>&1``/``>&2``, and input from a literal path (whose scope the
    session check verifies). A target computed by any expansion is never harmless."""
    operator, target, fd = redirect.operator, redirect.target, redirect.fd
    if operator in ("<<", "<<-", "<<<"):
        return True  # the body is data (an unquoted heredoc body is checked separately)
    if operator in (">&-", "<&-"):
        return fd is None or fd <= 2
    if target is None or not target.is_literal:
        return False
    value = target.value
    if operator == "<":
        return (fd is None or fd == 0) and is_plain_input_path(value)
    if operator == ">&" and value in _STANDARD_STREAMS:
        return fd is None or fd in (1, 2)  # 2>&1, >&2; never onto stdin or a new fd
    if operator in _OUTPUT_OPERATORS:
        return (fd is None or fd in (1, 2)) and value in _NULL_SINKS
    return False  # `<>`, `<&`, anything new


def is_plain_input_path(value: str) -> bool:
    """A literal path an input redirection may read: ``/dev/null`` or a path outside
    /dev, /proc and /sys, in any spelling (``//dev/tcp``, ``/dev/./tcp``, ``/x/../dev``)."""
    if not value or value == "/dev/null":
        return bool(value)
    normal = "/" + os.path.normpath(value).lstrip("/") if value.startswith("/") else os.path.normpath(value)
    return not any(normal == root or normal.startswith(root + "/") for root in _SPECIAL_INPUT_ROOTS)


def assignment_is_safe(assignment: Assignment) -> bool:
    value = assignment.value
    return is_safe_variable_name(assignment.name) and (value is None or value.is_literal)


def _simple_command_is_read_only(simple: SimpleCommand, names: list[str]) -> bool:
    if not simple.argv:
        return False  # `PATH=/tmp/x` alone changes every later command
    if not all(assignment_is_safe(assignment) for assignment in simple.assignments):
        return False
    return _argv_is_read_only(simple.argv, names)


def _argv_is_read_only(argv: Sequence[Word], names: list[str]) -> bool:
    """Check one command line as a program will see it; ``names`` collects command names."""
    unwrapped = unwrap(argv)
    count = 0  # leading wrappers that only change scheduling (not `nohup`: it writes nohup.out)
    while count < len(unwrapped.wrappers) and program_spec(unwrapped.wrappers[count]).wrapper == "scheduling":
        count += 1
    if count >= len(unwrapped.layers):
        return False  # one of them was not understood
    # Another wrapper (`sudo`, `env`, `xargs`) is judged as the command itself below.
    stripped = unwrapped.layers[count]
    if not stripped:
        return False
    head = stripped[0]
    if not head.is_literal or "/" in head.value or head.value.startswith("-"):
        return False  # `$cmd`, `./script`, `/tmp/ls`: not the program we know
    name = head.value
    names.append(name)
    spec = program_spec(name)
    if spec.wrapper == "input" and spec.options is not None:
        return _xargs_is_read_only(stripped[1:], spec.options, names)
    return spec.read_only_arguments(stripped[1:])


# Stands for the words xargs reads from its input: anything at all, options included.
_UNKNOWN_WORD = Word(
    raw="<xargs input>", value="<xargs input>", is_literal=False, has_expansion=True,
    has_glob=False, may_be_option=True,
)


def _xargs_is_read_only(args: Sequence[Word], options: Options, names: list[str]) -> bool:
    """``xargs [options] command...`` runs ``command`` with words from its input appended
    (or substituted for ``-I`` replace-string); those words may be options."""
    parsed = parse_options(args, options)
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

