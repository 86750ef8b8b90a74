"""Memory: the instruction files Claude Code reads (CLAUDE.md, rules, imports).

:func:`nb_agent.memory.loader.load_memory` finds what a session reads at its start,
:func:`nb_agent.memory.nested.nested_memory_for` what reading a file in a subfolder adds,
:func:`nb_agent.memory.remember.remember` adds a line to one of them. (This package's
``__init__`` imports nothing: the kernel's background imports and a cell's imports may
meet in these modules, and a package that imports its own submodules makes such a meeting
a deadlock Python breaks with a half-initialized module.)
"""
