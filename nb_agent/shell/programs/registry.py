"""The registry: every program the Bash decisions know, one spec each."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from functools import lru_cache
from types import MappingProxyType

from nb_agent.shell.programs.builtins import BUILTINS
from nb_agent.shell.programs.git import GIT
from nb_agent.shell.programs.readers import READERS
from nb_agent.shell.programs.runners import RUNNERS
from nb_agent.shell.programs.search import SEARCHERS
from nb_agent.shell.programs.spec import ProgramSpec
from nb_agent.shell.programs.tools import TOOLS, VERSIONED_NAMES

__all__ = ["PROGRAMS", "program_spec"]


def _index(*families: tuple[ProgramSpec, ...]) -> Mapping[str, ProgramSpec]:
    found: dict[str, ProgramSpec] = {}
    for family in families:
        for spec in family:
            if spec.name in found:
                raise ValueError(f"two specs for {spec.name!r}")  # one fact in one place
            found[spec.name] = spec
    return MappingProxyType(found)


PROGRAMS: Mapping[str, ProgramSpec] = _index(BUILTINS, READERS, SEARCHERS, RUNNERS, TOOLS, (GIT,))
"""Program name -> its spec."""


@lru_cache(maxsize=512)
def program_spec(name: str) -> ProgramSpec:
    """The spec of the program a command word names (``/usr/bin/grep`` is ``grep``);
    a program nobody described gets the defaults: never read-only, every word a path
    whose contents it may read."""
    base = name.rsplit("/", 1)[-1]
    spec = PROGRAMS.get(base)
    if spec is not None:
        return spec
    for pattern, versioned in VERSIONED_NAMES:
        if pattern.fullmatch(base):
            return replace(versioned, name=base)
    return ProgramSpec(name=base)
