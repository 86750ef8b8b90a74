"""Memory brought by the files the agent reads: subfolders' CLAUDE.md and path-specific rules.

A CLAUDE.md in a subfolder of the working directory is not read at the start: it is read
the first time the agent reads (or edits) a file in that subfolder, and reaches the model
as an attachment at the next turn, once. A ``.claude/rules`` file with ``paths`` is read
the first time the agent reads a file it matches. The same link and trust rules hold as
for the files read at the start (:mod:`nb_agent.memory.loader`).
"""

from __future__ import annotations

import os
from pathlib import Path

from nb_agent.memory.files import MemoryFile
from nb_agent.memory.loader import MemoryLoad, MemoryScope, follow_imports, load_folder_memory
from nb_agent.memory.rules import rule_matches

__all__ = ["NESTED_MEMORY_KIND", "nested_memory_for"]

NESTED_MEMORY_KIND = "nested_memory"
"""The attachment kind of memory read because the agent read a file."""


def nested_memory_for(load: MemoryLoad, scope: MemoryScope, path: Path) -> list[MemoryFile]:
    """What the first read of ``path`` adds to ``load``: the memory files of the folders
    from the working directory down to ``path``'s folder not read yet, then the rules with
    ``paths`` that match it (each with its imports). Empty when nothing is new."""
    path = Path(os.path.normpath(os.path.join(scope.cwd, path)))
    before = len(load.files)
    for directory in _folders_below(scope.cwd, path.parent):
        load_folder_memory(load, scope, directory)
    for rule in list(load.conditional):
        if rule.rule_base is not None and rule_matches(rule.rule_paths, path, base=rule.rule_base):
            load.conditional.remove(rule)
            load.files.append(rule)
            follow_imports(load, scope, rule, chain=(os.path.realpath(rule.path),))
    return load.files[before:]


def _folders_below(cwd: Path, directory: Path) -> list[Path]:
    """The folders strictly below ``cwd`` down to ``directory``, outermost first; none when
    ``directory`` is not below ``cwd`` or leads out of it through a link."""
    cwd = Path(os.path.normpath(os.path.abspath(cwd)))
    try:
        parts = directory.relative_to(cwd).parts
    except ValueError:
        return []
    real_cwd = os.path.realpath(cwd).rstrip(os.sep) + os.sep
    folders: list[Path] = []
    current = cwd
    for part in parts:
        current = current / part
        if not os.path.realpath(current).startswith(real_cwd):
            break  # a link out of the working directory: nothing beyond it is the project's
        folders.append(current)
    return folders
