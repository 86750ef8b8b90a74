"""The 64 MB cap on a Bash output file (seed 003 §3.5), for foreground and background
commands alike.

A command writes straight into its output file (nobody reads a pipe), so a runaway
command, or one left running in the background, could fill the disk. A daemon thread
(independent of any event loop, so background shells are covered after the cell ends)
checks the live commands' files a few times a second and cuts any file past the cap back
to it; the command keeps running, what it writes past the cap is dropped, and the result
says so.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any

MAX_OUTPUT_FILE_BYTES = 64 * 1024 * 1024
CHECK_INTERVAL_S = 0.1

_started = False
_lock = threading.Lock()


def capped_notice(limit: int) -> str:
    return f"[output exceeded {limit // (1024 * 1024)} MB: the output file was cut at that size and the rest was discarded]"


def enforce_cap(command: Any, limit: int) -> None:
    """Cut ``command``'s output file back to ``limit`` bytes if it grew past it."""
    try:
        if os.path.getsize(command.output_path) > limit:
            os.truncate(command.output_path, limit)
            command.output_capped = True
    except OSError:
        pass


def start_watchdog(live_commands: Callable[[], Iterable[Any]], limit: Callable[[], int]) -> None:
    """Start (once per process) the thread that caps every live command's output file."""
    global _started
    with _lock:
        if _started:
            return
        _started = True

    def watch() -> None:
        while True:
            for command in list(live_commands()):
                enforce_cap(command, limit())
            time.sleep(CHECK_INTERVAL_S)

    threading.Thread(target=watch, name="nb_agent-bash-output-cap", daemon=True).start()
