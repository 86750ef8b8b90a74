"""Spellings of a program's options, generated from its grammar in the program registry
(for the read scope's tests: issue 21 §3).

Every way the program accepts an option: separate value, attached value, ``=``,
abbreviations of long options (when the program takes them), short options clustered
behind a flag.
"""

from __future__ import annotations

from nb_agent.shell.options import Options
from nb_agent.shell.programs import ProgramSpec

__all__ = ["abbreviations", "cluster_flag", "flag_spellings", "value_spellings"]

# Flags chosen to lead a cluster must change nothing about what is read.
_QUIET_FLAGS = ("-i", "-n", "-s", "-c", "-a", "-r", "-S", "-M")


def cluster_flag(spec: ProgramSpec) -> str | None:
    """A harmless short flag of ``spec`` to cluster other short options behind."""
    grammar = spec.options
    assert grammar is not None
    special = spec.recursive | spec.follows_links | spec.names_from_file | spec.pattern_options
    for flag in _QUIET_FLAGS:
        if flag in grammar.flags and flag not in special:
            return flag
    return None


def abbreviations(grammar: Options, option: str) -> list[str]:
    """The shortest unambiguous prefix of a long option, and one a little longer."""
    if not grammar.abbreviations or not option.startswith("--"):
        return []
    found: list[str] = []
    for length in range(3, len(option)):
        prefix = option[:length]
        if grammar.long_option(prefix, abbreviations=True) == option:
            found.append(prefix)
            if len(found) == 2:
                break
    return found


def value_spellings(spec: ProgramSpec, option: str, value: str) -> list[list[str]]:
    """Every argv fragment giving ``option`` the value ``value``."""
    grammar = spec.options
    assert grammar is not None
    out: list[list[str]] = []
    if option.startswith("--"):
        for name in [option, *abbreviations(grammar, option)]:
            if option in grammar.valued:
                out.append([name, value])
            out.append([f"{name}={value}"])
        return out
    if option in grammar.valued:
        out.append([option, value])
    out.append([option + value])
    if (flag := cluster_flag(spec)) is not None:
        if option in grammar.valued:
            out.append([flag + option[1:], value])
        out.append([flag + option[1:] + value])
    return out


def flag_spellings(spec: ProgramSpec, option: str) -> list[list[str]]:
    """Every argv fragment giving the flag ``option``."""
    grammar = spec.options
    assert grammar is not None
    if option.startswith("--"):
        return [[name] for name in [option, *abbreviations(grammar, option)]]
    spellings = [[option]]
    if (flag := cluster_flag(spec)) is not None and flag != option:
        spellings.append([flag + option[1:]])
    return spellings
