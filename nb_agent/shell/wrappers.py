"""One wrapper-stripping for every Bash decision: deny, ask, allow and read-only.

``timeout -s KILL 5 cat x``, ``stdbuf -o0 cat x``, ``env A=1 nice -n 2 cat x`` and
``sudo -u me cat x`` all run ``cat x``. :func:`unwrap` peels such wrappers off a simple
command's argv one layer at a time and returns every layer, so that a deny rule for
``cat`` sees ``cat x`` however it is wrapped, while an allow rule or the read-only check
only looks through the wrappers that change nothing but scheduling (each program's
:attr:`~nb_agent.shell.programs.ProgramSpec.wrapper` kind).
A wrapper whose options are not understood ends the peeling with ``complete=False``:
deny matching then over-matches (every suffix of the argv), allow matching refuses.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from nb_agent.shell.options import parse_options
from nb_agent.shell.parse_words import Word
from nb_agent.shell.programs import ProgramSpec, program_spec

__all__ = ["Unwrapped", "unwrap"]


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
        return self.complete and all(program_spec(name).wrapper in ("scheduling", "detaching") for name in self.wrappers)


def unwrap(argv: Sequence[Word]) -> Unwrapped:
    """Peel every known wrapper off ``argv``."""
    layers: list[tuple[Word, ...]] = [tuple(argv)]
    wrappers: list[str] = []
    current: Sequence[Word] = argv
    while current:
        head = current[0]
        spec = program_spec(head.value) if head.is_literal else None
        if spec is None or spec.wrapper is None:
            break
        inner = spec.peel(spec, current[1:]) if spec.peel is not None else _operands(spec, current[1:])
        if inner is None:
            wrappers.append(spec.name)
            return Unwrapped(layers=tuple(layers), wrappers=tuple(wrappers), complete=False)
        if not inner:
            break  # `env`, `command -v x`: the program itself is the command
        wrappers.append(spec.name)
        current = inner
        layers.append(tuple(current))
    return Unwrapped(layers=tuple(layers), wrappers=tuple(wrappers), complete=True)


def _operands(spec: ProgramSpec, args: Sequence[Word]) -> Sequence[Word] | None:
    """What a wrapper runs: its operands (``None`` when its options are not understood)."""
    if spec.options is None:
        return None
    parsed = parse_options(args, spec.options)
    return None if parsed is None else parsed.positionals
