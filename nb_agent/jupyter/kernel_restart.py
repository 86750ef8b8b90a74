"""A run going on when the kernel is restarted (or shut down) ends as a static output that
says so, instead of a frozen live view whose widgets die with the kernel.

Jupyter asks a kernel to shut down before it restarts it (``shutdown_request``, with five
seconds before it kills it). nb_agent wraps the kernel's ``do_shutdown``: before the kernel
goes, the running cell's live view is replaced (same display id, so the page updates the
cell and the saved notebook keeps it) by the run's static rendering so far, ending with why
it stopped and how to continue. A kernel killed outright gets no such chance: the saved
output is then the live view's plain-text stand-in (:data:`LIVE_VIEW_TEXT`).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)

RESTART_NOTICE = (
    "Stopped by a kernel restart. The conversation up to its last complete message is saved: "
    "run %agent resume in the new kernel to continue it (a new %%agent cell starts a new conversation)."
)
SHUTDOWN_NOTICE = "Stopped: the kernel shut down. The conversation up to its last complete message is saved: %agent resume continues it."
LIVE_VIEW_TEXT = (
    "nb_agent: the live view of a run (shown only while its kernel runs; the run's result replaces it when it ends). "
    "If the kernel died during the run, %agent resume continues the saved conversation."
)
"""The plain-text form of the live view: what a saved notebook shows if the run never ended."""

_ORIGINAL = "_nb_agent_do_shutdown"

FLUSH_S = 0.5
"""At most this long for the kernel's IOPub thread to send the run's end."""
TRAVEL_S = 1.0
"""Then this long for it to reach the page before the kernel goes on shutting down.
JupyterLab closes the page's kernel websocket as soon as the server says the restart is
done; a message the server forwards on that socket as it closes is lost (neither buffered
nor replayed). On a loaded machine, restarts done 0.8 and 1.2 s after the run's end was sent
lost it, while those done 1.4-2 s after kept it. Jupyter kills a kernel 5 s into its
shutdown: SessionEnd hooks (:mod:`nb_agent.jupyter.shutdown`) still get their 3 s after this."""


def install(kernel: Any, stop_running_run: Callable[[str], bool]) -> None:
    """Wrap ``kernel.do_shutdown`` so that ``stop_running_run(notice)`` runs first (it says
    whether a run was stopped: then its end is given time to leave, see :data:`TRAVEL_S`)."""
    if kernel is None or hasattr(kernel, _ORIGINAL) or not hasattr(kernel, "do_shutdown"):
        return
    original = kernel.do_shutdown

    def do_shutdown(restart: bool) -> Any:
        try:
            if stop_running_run(RESTART_NOTICE if restart else SHUTDOWN_NOTICE):
                _let_it_leave(kernel)
        except Exception:  # never keep the kernel from shutting down
            log.debug("could not end the running run's view", exc_info=True)
        return original(restart)

    setattr(kernel, _ORIGINAL, original)
    kernel.do_shutdown = do_shutdown


def _let_it_leave(kernel: Any) -> None:
    """Until the IOPub thread has sent what was queued before (its queue is in order), then
    :data:`TRAVEL_S` more."""
    iopub = getattr(kernel, "iopub_thread", None)
    if iopub is not None and hasattr(iopub, "schedule"):
        sent = threading.Event()
        iopub.schedule(sent.set)
        sent.wait(FLUSH_S)
    time.sleep(TRAVEL_S)


def uninstall(kernel: Any) -> None:
    if kernel is not None and hasattr(kernel, _ORIGINAL):
        del kernel.do_shutdown
        delattr(kernel, _ORIGINAL)
