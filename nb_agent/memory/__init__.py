"""Memory: the instruction files Claude Code reads (CLAUDE.md, rules, imports).

:func:`load_memory` finds what a session reads at its start, :func:`nested_memory_for`
what reading a file in a subfolder adds, :func:`remember` adds a line to one of them.
"""

from nb_agent.memory.files import MAX_MEMORY_FILE_CHARS, MemoryFile, MemoryOwner, SkippedMemory
from nb_agent.memory.imports import MAX_IMPORT_DEPTH
from nb_agent.memory.loader import MANAGED_MEMORY_FILE, MemoryLoad, MemoryScope, load_memory
from nb_agent.memory.nested import NESTED_MEMORY_KIND, nested_memory_for
from nb_agent.memory.remember import MEMORY_TARGETS, MemoryTarget, memory_target_path, remember

__all__ = [
    "MANAGED_MEMORY_FILE",
    "MAX_IMPORT_DEPTH",
    "MAX_MEMORY_FILE_CHARS",
    "MEMORY_TARGETS",
    "NESTED_MEMORY_KIND",
    "MemoryFile",
    "MemoryLoad",
    "MemoryOwner",
    "MemoryScope",
    "MemoryTarget",
    "SkippedMemory",
    "load_memory",
    "memory_target_path",
    "nested_memory_for",
    "remember",
]
