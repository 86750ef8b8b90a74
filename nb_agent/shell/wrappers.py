"""One wrapper-stripping for every Bash decision: deny, ask, allow and read-only.

``timeout -s KILL 5 cat x``, ``stdbuf -o0 cat x``, ``env A=1 nice -n 2 cat x`` and
``sudo -u me cat x`` all run ``cat x``. :func:`unwrap` peels such wrappers off a simple
command's argv one layer at a time and returns every layer, so that a deny rule for
``cat`` sees ``cat x`` however it is wrapped, while an allow rule or the read-only check
only looks through the wrappers that change nothing but scheduling (:data:`SAFE_WRAPPERS`).
A wrapper whose options are not understood ends the peeling with ``complete=False``:
deny matching then over-matches (every suffix of the argv), allow matching refuses.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from nb_agent.shell.parse_words import Word
from nb_agent.shell.read_only_args import OptionSpec, parse_options

__all__ = ["SAFE_WRAPPERS", "WRAPPERS", "Unwrapped", "unwrap", "wrapper_spec"]

_DURATION = re.compile(r"[0-9]+(\.[0-9]+)?[smhd]?")
_NICENESS = re.compile(r"-[0-9]+|--?adjustment=[+-]?[0-9]+")
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")

_SPECS: dict[str, OptionSpec] = {
    "timeout": OptionSpec.of(
        flags="--preserve-status --foreground -v --verbose",
        valued="-s --signal -k --kill-after",
        stop_at_positional=True,
    ),
    "nice": OptionSpec.of(valued="-n --adjustment", stop_at_positional=True),
    "time": OptionSpec.of(flags="-p", stop_at_positional=True),
    "stdbuf": OptionSpec.of(valued="-i -o -e --input --output --error", stop_at_positional=True),
    "nohup": OptionSpec.of(stop_at_positional=True),
    "command": OptionSpec.of(flags="-p", stop_at_positional=True),  # -v/-V only look up
    "builtin": OptionSpec.of(stop_at_positional=True),
    "exec": OptionSpec.of(flags="-c -l", valued="-a", stop_at_positional=True),
    "env": OptionSpec.of(
        flags="-i --ignore-environment -0 --null", valued="-u --unset -C --chdir",
        stop_at_positional=True,
    ),  # no -S/--split-string: it re-splits a string into words we cannot see
    "sudo": OptionSpec.of(
        flags="-E -H -n -P -S -b -i -s -k -K --preserve-env --set-home --non-interactive "
        "--stdin --background --login --shell --reset-timestamp",
        valued="-u --user -g --group -h --host -p --prompt -C --close-from -D --chdir "
        "-r --role -t --type -T --command-timeout -U --other-user",
        stop_at_positional=True,
    ),
    "xargs": OptionSpec.of(
        flags="-0 --null -r --no-run-if-empty -t --verbose -x --exit -p --interactive "
        "--show-limits",
        valued="-a --arg-file -d --delimiter -E -I -L -n --max-args -P --max-procs "
        "-s --max-chars",
        attached="-e -i -l --eof --replace --max-lines",
        stop_at_positional=True,
    ),  # no --process-slot-var (sets a variable in the children)
    "doas": OptionSpec.of(flags="-n -s", valued="-u -C", stop_at_positional=True),
    "ionice": OptionSpec.of(flags="-t", valued="-c -n -p -P -u", stop_at_positional=True),
    "setsid": OptionSpec.of(flags="-c -f -w --ctty --fork --wait", stop_at_positional=True),
    "chrt": OptionSpec.of(flags="-b -d -f -i -o -r -m -a -v", stop_at_positional=True),
}

WRAPPERS: frozenset[str] = frozenset(_SPECS)
"""Programs that run the rest of their argv as a command."""
SAFE_WRAPPERS: frozenset[str] = frozenset({"timeout", "nice", "time", "stdbuf", "nohup"})
"""Wrappers an allow rule or the read-only check may look through: they change only
scheduling and buffering, never which program runs or with what environment."""


@dataclass(frozen=True, kw_only=True)
class Unwrapped:
    """The argv of a simple command, layer by layer."""

    layers: tuple[tuple[Word, ...], ...]
    """``layers[0]`` is the argv as written; each next one is what the wrapper runs."""
    wrappers: tuple[str, ...]
    """The wrapper names peeled, outermost first."""
    complete: bool
    """False when a wrapper's arguments were not understood (peeling stopped there)."""

    @property
    def inner(self) -> tuple[Word, ...]:
        """The innermost command's argv."""
        return self.layers[-1]

    @property
    def only_safe_wrappers(self) -> bool:
        """Every peeled wrapper is harmless and every layer was understood."""
        return self.complete and all(name in SAFE_WRAPPERS for name in self.wrappers)


def wrapper_spec(name: str) -> OptionSpec:
    """The options wrapper ``name`` accepts (``xargs`` is judged with the same spec)."""
    return _SPECS[name]


def _name(word: Word) -> str | None:
    """A command word's program name (``/usr/bin/env`` -> ``env``) if literal."""
    if not word.is_literal:
        return None
    return word.value.rsplit("/", 1)[-1]


def unwrap(argv: Sequence[Word]) -> Unwrapped:
    """Peel every known wrapper off ``argv``."""
    layers: list[tuple[Word, ...]] = [tuple(argv)]
    wrappers: list[str] = []
    current: Sequence[Word] = argv
    while current:
        name = _name(current[0])
        if name not in _SPECS:
            break
        inner = _peel(name, current[1:])
        if inner is None:
            wrappers.append(name)
            return Unwrapped(layers=tuple(layers), wrappers=tuple(wrappers), complete=False)
        if not inner:
            break  # `env`, `command -v x`: the program itself is the command
        wrappers.append(name)
        current = inner
        layers.append(tuple(current))
    return Unwrapped(layers=tuple(layers), wrappers=tuple(wrappers), complete=True)


def _peel(name: str, args: Sequence[Word]) -> Sequence[Word] | None:
    """What ``name args`` runs; ``None`` when its options are not understood."""
    if name == "nice" and args and args[0].is_literal and _NICENESS.fullmatch(args[0].value):
        args = args[1:]
    if name == "command" and any(arg.is_literal and arg.value in ("-v", "-V") for arg in args[:1]):
        return ()  # `command -v NAME` looks a name up and runs nothing
    if name == "env":
        return _peel_env(args)
    parsed = parse_options(args, _SPECS[name])
    if parsed is None:
        return None
    rest = parsed.positionals
    if name == "timeout":
        if not rest or not (rest[0].is_literal and _DURATION.fullmatch(rest[0].value)):
            return None
        rest = rest[1:]
    return rest


def _peel_env(args: Sequence[Word]) -> Sequence[Word] | None:
    parsed = parse_options(args, _SPECS["env"])
    if parsed is None:
        return None
    rest = list(parsed.positionals)
    while rest and (_ASSIGNMENT.match(rest[0].value) or rest[0].value == "-"):
        rest.pop(0)  # `env A=1 B=2 cmd`; `env - cmd` is `env -i cmd`
    return rest
