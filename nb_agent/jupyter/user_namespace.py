"""The user's own variables in the kernel's namespace (IPython's internals, modules and
underscored names left out). Kept apart from the tools so that what reads the namespace
at every run (checkpoints, the between-run notes) loads without the tool machinery."""

from __future__ import annotations

import types
from typing import Any

IPYTHON_NAMES = frozenset({"In", "Out", "get_ipython", "exit", "quit", "open"})


def user_variables(shell: Any) -> list[tuple[str, Any]]:
    """The user's own variables, in definition order."""
    hidden = getattr(shell, "user_ns_hidden", {}) or {}
    out = []
    for name, value in list(shell.user_ns.items()):
        if name.startswith("_") or name in IPYTHON_NAMES:
            continue
        if name in hidden and hidden[name] is value:
            continue
        if isinstance(value, types.ModuleType):
            continue
        out.append((name, value))
    return out
