"""``%load_ext nb_agent``: register the magics and the cell transformer; close on exit."""

from __future__ import annotations

import atexit
import os
from pathlib import Path
from typing import Any

from nb_agent.errors import ConfigurationError
from nb_agent.hidden_paths import register_secret
from nb_agent.import_guard import planted_modules
from nb_agent.jupyter import comm_status, kernel_restart, transformer, warm
from nb_agent.jupyter.magics import AgentMagics

_ATEXIT_ATTR = "_nb_agent_atexit"


def load_ipython_extension(ipython: Any) -> None:
    planted = planted_modules()
    if planted:
        # nb_agent would use them: an import finds a module already loaded, whatever its origin.
        raise ConfigurationError(
            "nb_agent was not loaded: these modules were imported from the kernel's folder and shadow installed "
            f"ones: {', '.join(planted)}. Rename them (or remove them) and restart the kernel."
        )
    _hide_connection_file(ipython)
    magics = AgentMagics(shell=ipython)
    ipython.register_magics(magics)
    transformer.install(ipython)
    comm_status.install(getattr(ipython, "kernel", None))
    kernel_restart.install(getattr(ipython, "kernel", None), magics.session.stop_for_shutdown)
    magics.session.live.install()
    magics.session.attachments.ledger.install(ipython)
    warm.start_at_load()  # the first run's heavy imports, in the background
    close = magics.session.close
    atexit.register(close)
    setattr(ipython, _ATEXIT_ATTR, close)


def _hide_connection_file(ipython: Any) -> None:
    """The kernel's connection file holds the key that lets anyone run code in this kernel
    (outside the sandbox): hidden from sandboxed commands wherever the frontend put it."""
    kernel = getattr(ipython, "kernel", None)
    app = getattr(kernel, "parent", None)
    connection_file = getattr(app, "abs_connection_file", None) or getattr(app, "connection_file", None)
    if connection_file:
        register_secret(Path(os.path.abspath(connection_file)))


def unload_ipython_extension(ipython: Any) -> None:
    transformer.uninstall(ipython)
    comm_status.uninstall(getattr(ipython, "kernel", None))
    kernel_restart.uninstall(getattr(ipython, "kernel", None))
    magics = ipython.magics_manager.registry.get("AgentMagics")
    if magics is not None:
        magics.session.live.uninstall()
        magics.session.attachments.ledger.uninstall()
    close = getattr(ipython, _ATEXIT_ATTR, None)
    if close is not None:
        atexit.unregister(close)
        close()
        delattr(ipython, _ATEXIT_ATTR)
