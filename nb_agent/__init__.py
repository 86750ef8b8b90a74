"""nb_agent: an AI agent that runs inside your Jupyter kernel.

``%load_ext nb_agent`` registers the ``%%agent`` and ``%agent`` magics. The engine
(``nb_agent.loop``, ``nb_agent.engine``, ``nb_agent.tools`` …) has no Jupyter dependency.
"""

from __future__ import annotations

from typing import Any

from nb_agent import import_guard as _import_guard
from nb_agent.version import __version__ as __version__

# First thing: nothing nb_agent imports from here on may come from the kernel's folder.
_import_guard.install()


def load_ipython_extension(ipython: Any) -> None:
    from nb_agent.jupyter.extension import load_ipython_extension as _load

    _load(ipython)


def unload_ipython_extension(ipython: Any) -> None:
    from nb_agent.jupyter.extension import unload_ipython_extension as _unload

    _unload(ipython)
