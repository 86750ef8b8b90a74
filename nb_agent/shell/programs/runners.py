"""Programs that run other commands: wrappers, shells, ``eval``, and the like.

``timeout -s KILL 5 cat x``, ``env A=1 cat x`` and ``sudo -u me cat x`` all run ``cat x``:
a wrapper's grammar (and, for a few, a :attr:`~ProgramSpec.peel` hook) says where the
command it runs starts. Shells, ``su -c``, ``eval`` and ``watch`` take a command line as
a string; ``strace``, ``flock``, ``parallel`` and others run part of their argv in ways
no grammar here models, so deny rules look at every tail of it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from nb_agent.shell.options import Options, parse_options
from nb_agent.shell.parse_words import Word
from nb_agent.shell.programs.builtins import literal_values
from nb_agent.shell.programs.spec import CommandString, ProgramSpec, specs

__all__ = ["RUNNERS"]

_DURATION = re.compile(r"[0-9]+(\.[0-9]+)?[smhd]?")
_NICENESS = re.compile(r"-[0-9]+|--?adjustment=[+-]?[0-9]+")
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")


def _operands(spec: ProgramSpec, args: Sequence[Word]) -> Sequence[Word] | None:
    if spec.options is None:
        return None
    parsed = parse_options(args, spec.options)
    return None if parsed is None else parsed.positionals


def _peel_timeout(spec: ProgramSpec, args: Sequence[Word]) -> Sequence[Word] | None:
    rest = _operands(spec, args)
    if not rest or not (rest[0].is_literal and _DURATION.fullmatch(rest[0].value)):
        return None
    return rest[1:]


def _peel_nice(spec: ProgramSpec, args: Sequence[Word]) -> Sequence[Word] | None:
    if args and args[0].is_literal and _NICENESS.fullmatch(args[0].value):
        args = args[1:]
    return _operands(spec, args)


def _peel_command(spec: ProgramSpec, args: Sequence[Word]) -> Sequence[Word] | None:
    if any(arg.is_literal and arg.value in ("-v", "-V") for arg in args[:1]):
        return ()  # `command -v NAME` looks a name up and runs nothing
    return _operands(spec, args)


def _peel_env(spec: ProgramSpec, args: Sequence[Word]) -> Sequence[Word] | None:
    rest = _operands(spec, args)
    if rest is None:
        return None
    words = list(rest)
    while words and (_ASSIGNMENT.match(words[0].value) or words[0].value == "-"):
        words.pop(0)  # `env A=1 B=2 cmd`; `env - cmd` is `env -i cmd`
    return words


def _env(args: Sequence[Word]) -> bool:
    # Printing the environment only: with a command, env hides what it runs.
    values = literal_values(args)
    return values is not None and all(value in ("-0", "--null") for value in values)


def _command(args: Sequence[Word]) -> bool:
    # `command -v NAME` looks a name up; `command NAME` would run it past our checks.
    values = literal_values(args)
    return values is not None and len(values) >= 2 and values[0] in ("-v", "-V") and all(
        not value.startswith("-") for value in values[1:]
    )


_SHELL = CommandString(kind="shell")

RUNNERS: tuple[ProgramSpec, ...] = (
    # --- wrappers ------------------------------------------------------------------
    ProgramSpec(
        name="timeout",
        options=Options.of(
            flags="--preserve-status --foreground -v --verbose", valued="-s --signal -k --kill-after",
            stop_at_operand=True,
        ),
        wrapper="scheduling",
        peel=_peel_timeout,
        rule_words="exact",
    ),
    ProgramSpec(
        name="nice", options=Options.of(valued="-n --adjustment", stop_at_operand=True),
        wrapper="scheduling", peel=_peel_nice, rule_words="exact",
    ),
    ProgramSpec(name="time", options=Options.of(flags="-p", stop_at_operand=True), wrapper="scheduling", rule_words="exact"),
    ProgramSpec(
        name="stdbuf", options=Options.of(valued="-i -o -e --input --output --error", stop_at_operand=True),
        wrapper="scheduling", rule_words="exact",
    ),
    ProgramSpec(name="nohup", options=Options.of(stop_at_operand=True), wrapper="detaching", rule_words="exact"),
    ProgramSpec(
        name="command",
        options=Options.of(flags="-p", stop_at_operand=True),  # -v/-V only look up
        wrapper="other",
        peel=_peel_command,
        read_only="check",
        check=_command,
        operands="none",
        access="none",
        rule_words="exact",
    ),
    ProgramSpec(name="builtin", options=Options.of(stop_at_operand=True), wrapper="other", rule_words="exact"),
    ProgramSpec(
        name="exec", options=Options.of(flags="-c -l", valued="-a", stop_at_operand=True), wrapper="other", rule_words="exact"
    ),
    ProgramSpec(
        name="env",
        # no -S/--split-string: it re-splits a string into words we cannot see
        options=Options.of(flags="-i --ignore-environment -0 --null", valued="-u --unset -C --chdir", stop_at_operand=True),
        wrapper="other",
        peel=_peel_env,
        read_only="check",
        check=_env,
        operands="none",
        access="none",
        command_string=CommandString(kind="option", options=frozenset({"-S", "--split-string"})),
        rule_words="exact",
    ),
    ProgramSpec(
        name="sudo",
        options=Options.of(
            flags="-E -H -n -P -S -b -i -s -k -K --preserve-env --set-home --non-interactive "
            "--stdin --background --login --shell --reset-timestamp",
            valued="-u --user -g --group -h --host -p --prompt -C --close-from -D --chdir "
            "-r --role -t --type -T --command-timeout -U --other-user",
            stop_at_operand=True,
        ),
        wrapper="other",
        rule_words="exact",
    ),
    ProgramSpec(
        name="xargs",
        options=Options.of(
            flags="-0 --null -r --no-run-if-empty -t --verbose -x --exit -p --interactive --show-limits",
            valued="-a --arg-file -d --delimiter -E -I -L -n --max-args -P --max-procs -s --max-chars",
            optional="-e -i -l --eof --replace --max-lines",
            stop_at_operand=True,
        ),  # no --process-slot-var (sets a variable in the children)
        wrapper="input",
        rule_words="exact",
    ),
    ProgramSpec(name="doas", options=Options.of(flags="-n -s", valued="-u -C", stop_at_operand=True), wrapper="other", rule_words="exact"),
    ProgramSpec(
        name="ionice", options=Options.of(flags="-t", valued="-c -n -p -P -u", stop_at_operand=True),
        wrapper="other", rule_words="exact",
    ),
    ProgramSpec(
        name="setsid", options=Options.of(flags="-c -f -w --ctty --fork --wait", stop_at_operand=True),
        wrapper="other", rule_words="exact",
    ),
    ProgramSpec(
        name="chrt", options=Options.of(flags="-b -d -f -i -o -r -m -a -v", stop_at_operand=True),
        wrapper="other", rule_words="exact",
    ),
    # --- command lines as strings --------------------------------------------------
    *specs("sh bash dash zsh ksh mksh ash fish", command_string=_SHELL, rule_words="exact"),
    ProgramSpec(name="busybox", command_string=_SHELL, runs_argv_tail=True),
    *specs("eval", command_string=CommandString(kind="joined"), rule_words="exact"),
    ProgramSpec(name="watch", command_string=CommandString(kind="joined"), runs_argv_tail=True),
    *specs(
        "su runuser", command_string=CommandString(kind="option", options=frozenset({"-c", "--command"})),
        runs_argv_tail=True,
    ),
    *specs("script flock", command_string=CommandString(kind="option", options=frozenset({"-c"})), runs_argv_tail=True),
    *specs("source .", rule_words="exact"),  # run a file of commands in this shell
    # --- argv runners no grammar here models ---------------------------------------
    *specs(
        "unbuffer strace ltrace taskset chroot nsenter parallel systemd-run firejail proot "
        "fakeroot valgrind catchsegv chronic caffeinate nocache sg unshare dbus-run-session "
        "xvfb-run torsocks proxychains proxychains4 pkexec coproc",
        runs_argv_tail=True,
    ),
)
"""Wrappers, shells and command runners."""
