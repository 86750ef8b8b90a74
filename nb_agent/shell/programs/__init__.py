"""What each program does with its arguments: one declarative spec per program.

:func:`program_spec` gives the :class:`ProgramSpec` of a command word; every Bash
decision (read-only classifier, read scope, shell guard, Bash rules, rule suggestions,
the Bash tool) asks it, and nothing else holds per-program facts.
"""

from nb_agent.shell.programs.registry import PROGRAMS, program_spec
from nb_agent.shell.programs.spec import CommandString, ProgramSpec

__all__ = ["PROGRAMS", "CommandString", "ProgramSpec", "program_spec"]
