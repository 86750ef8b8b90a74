"""The input transformer that makes a ``%%agent`` cell an async cell.

IPython runs a cell containing a top-level ``await`` as a coroutine on the kernel's
own event loop (autoawait with the asyncio runner). This cleanup transformer rewrites
a cell that starts with ``%%agent`` into one such ``await``, so the cell stays busy while
the agent works and the kernel still handles widget clicks and interrupts meanwhile.
A cell holding only an async ``%agent`` subcommand (``compact``, ``mcp``, ``new``,
``resume`` …: those whose handler is a coroutine in :data:`~nb_agent.jupyter.commands.SUBCOMMANDS`)
is rewritten the same way (compaction calls the model; MCP servers connect; session hooks run). When autoawait is off or another runner is active, nothing is
rewritten: the plain cell magic runs and explains what to do.
"""

from __future__ import annotations

import re
from typing import Any

from nb_agent.jupyter.commands import awaited_names

ENTRY_MODULE = "nb_agent.jupyter.magics"
_CELL_HEAD = re.compile(r"^%%agent(?=\s|$)")
_ASYNC_LINE = re.compile(rf"^\s*%agent\s+(?:{'|'.join(awaited_names())})\b")


def _asyncio_cells_supported(shell: Any) -> bool:
    if not getattr(shell, "autoawait", False):
        return False
    try:
        from IPython.core.async_helpers import _asyncio_runner
    except ImportError:  # pragma: no cover - very old IPython
        return False
    return getattr(shell, "loop_runner", None) is _asyncio_runner


def _call(function: str, *args: str) -> str:
    arguments = ", ".join(repr(a) for a in args)
    return f'await __import__({ENTRY_MODULE!r}, fromlist=["_"]).{function}({arguments})\n'


class AgentCellTransformer:
    """``shell.input_transformers_cleanup`` entry (a callable over the cell's lines)."""

    has_side_effects = False

    def __init__(self, shell: Any) -> None:
        self.shell = shell

    def __call__(self, lines: list[str]) -> list[str]:
        start = 0
        while start < len(lines) and not lines[start].strip():
            start += 1
        if start >= len(lines):
            return lines
        first = lines[start]
        if _CELL_HEAD.match(first):
            if not _asyncio_cells_supported(self.shell):
                return lines
            line = first[len("%%agent") :].strip()
            body = "".join(lines[start + 1 :])
            return [_call("_run_cell_entry", line, body)]
        rest = [entry for entry in lines[start + 1 :] if entry.strip()]
        if not rest and _ASYNC_LINE.match(first) and _asyncio_cells_supported(self.shell):
            line = first.strip()[len("%agent") :].strip()
            return [_call("_run_line_entry", line)]
        return lines


def install(shell: Any) -> AgentCellTransformer:
    """Put the transformer first, before IPython's prompt-stripping cleanups touch the prompt text."""
    uninstall(shell)
    transformer = AgentCellTransformer(shell)
    shell.input_transformers_cleanup.insert(0, transformer)
    return transformer


def uninstall(shell: Any) -> None:
    cleanups = shell.input_transformers_cleanup
    cleanups[:] = [t for t in cleanups if type(t).__name__ != AgentCellTransformer.__name__]
