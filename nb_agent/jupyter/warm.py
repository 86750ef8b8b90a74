"""The first run's heavy imports (the engine and anthropic, the widgets, the Markdown
renderer, Pillow, libgit2, and the MCP SDK when MCP servers are configured), made in a background thread started at ``%load_ext`` so the
first ``%%agent`` cell does not wait for them, and awaited by that cell without blocking the
kernel's loop (its status line keeps counting meanwhile).

``%load_ext`` itself stays as fast as before: it only starts the thread. The imports go
through nb_agent's import guard like any other (:mod:`nb_agent.import_guard`: this thread
runs an nb_agent function, so its imports never resolve from the kernel's folder). Python's
import locks make a cell that imports one of these modules meanwhile wait for the thread,
not import it twice.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import os
import threading
from pathlib import Path

from nb_agent.collector import collector_paused

log = logging.getLogger(__name__)

WARM_ENV = "NB_AGENT_WARM_IMPORTS"
"""``0`` leaves the imports to the first run (which then makes them in a thread as well)."""

MODULES = (
    # The view first: the first cell imports it on the loop's thread before anything else, and
    # waits for this thread on its module lock. Entering the package graph from another module
    # at the same time (the engine's side reaches nb_agent.permissions through its package
    # __init__, the view through permissions.types) let the two threads each hold a lock the
    # other needed; Python then handed one a half-initialized module ("cannot import name
    # 'Settings' from partially initialized module"), and the cell fell back to plain text.
    "nb_agent.jupyter.view.agent_view",
    "nb_agent.jupyter.view.user_prompts",
    # Before the anthropic SDK: the protocol's models take their field docs from attribute docstrings,
    # for which pydantic asks inspect.getmodule, whose first call indexes the file of every
    # module loaded so far (0.1 s more once the SDK's 3,400 modules are there).
    "nb_agent.jupyter.live.protocol",
    "nb_agent.agent",
    "httpcore2",  # the SDK's HTTP client imports it when the first client is made
    "nb_agent.mcp.manager",  # the SDK itself only with servers: MCP_MODULES
    "nb_agent.jupyter.engine_factory",
    # The tools the first engine is built with (engine_factory.default_tools, builtin_tools).
    "nb_agent.jupyter.tools",
    "nb_agent.jupyter.live.read",
    "nb_agent.tools.bash",
    "nb_agent.tools.files",
    "nb_agent.tools.tool_search",
    "nb_agent.tools.interaction",
    "nb_agent.tools.web",
    "nb_agent.agents",
    "nb_agent.jupyter.cell_run",
    "nb_agent.jupyter.static_render",
    "ipywidgets",
    "PIL.Image",
    "pygit2",  # the file checkpoint taken before the first request (nb_agent.checkpoints.files)
)

MCP_MODULES = ("nb_agent.mcp.connection", "nb_agent.mcp.tool")
"""The MCP SDK (about half a second), which the first run needs before its first request
only when it has servers to start."""

_thread: threading.Thread | None = None
_lock = threading.Lock()


def _mcp_configured() -> bool:
    """Whether ``~/.claude.json`` or the folder's ``.mcp.json`` names MCP servers (the
    folder's are counted trusted or not: this only decides what to import early)."""
    from nb_agent.mcp.config import load_mcp_config

    loaded = load_mcp_config(cwd=Path.cwd(), include_project=False)
    return bool(loaded.servers or loaded.untrusted)


def _warm() -> None:
    # Without the cyclic collector: the imports make a few hundred thousand long-lived objects
    # (classes, functions, pydantic models), which set off full collections that walk the
    # whole growing heap (three, ~0.25 s of CPU, with nothing to free). The kernel's other
    # threads go without it meanwhile, as during a resume.
    with collector_paused():
        _import_all()


def _import_all() -> None:
    try:
        modules = MODULES + (MCP_MODULES if _mcp_configured() else ())
    except Exception:  # an unreadable config: the run that reads it says what is wrong
        log.debug("reading the MCP configuration failed", exc_info=True)
        modules = MODULES
    for name in modules:
        try:
            importlib.import_module(name)
        except Exception:  # the run that needs it will say what is wrong
            log.debug("warming %s failed", name, exc_info=True)
    try:
        from nb_agent.jupyter.html import markdown

        markdown("warm *up*")  # builds the renderer and its rules once
    except Exception:
        log.debug("warming the Markdown renderer failed", exc_info=True)


def start_at_load() -> None:
    """At ``%load_ext``: start the imports unless :data:`WARM_ENV` is ``0``."""
    if os.environ.get(WARM_ENV, "1").strip() != "0":
        start()


def start() -> threading.Thread:
    """Start the imports in the background (once per kernel)."""
    global _thread
    with _lock:
        if _thread is None:
            _thread = threading.Thread(target=_warm, name="nb_agent-warm-imports", daemon=True)
            _thread.start()
        return _thread


def join() -> None:
    """Wait until the imports are done, blocking (for code that imports nb_agent modules on
    the kernel's thread, such as a ``%agent`` subcommand). nb_agent's packages import each
    other in cycles: two threads entering such a cycle from different modules each hold a
    module lock the other needs, and Python then hands one of them a half-initialized module
    ("cannot import name … from partially initialized module"). Waiting for this thread
    costs no more than waiting on its module locks would."""
    thread = _thread
    if thread is not None and thread.is_alive() and thread is not threading.current_thread():
        thread.join()


async def ready() -> None:
    """Wait, without blocking the loop, until the imports are done (starting them if needed)."""
    thread = start()
    if thread.is_alive():
        await asyncio.to_thread(thread.join)
