"""What the kernel tools share with the running session: the shell, the notebook path,
and a sink for output that must reach the screen while user code blocks the loop."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(kw_only=True)
class KernelBridge:
    shell: Any
    """The ``InteractiveShell``: its ``user_ns`` is where code runs and variables live."""
    notebook_path: Callable[[], Path | None] = lambda: None
    """The notebook this kernel belongs to, when known."""
    live_output: Callable[[str, str], None] | None = None
    """``(tool_name, output_tail)``: shown at once, even while synchronous code runs."""
    before_blocking: Callable[[], None] | None = None
    """Called right before synchronous user code blocks the event loop (flush the view)."""
    live: Callable[[], Any] = lambda: None
    """The running ``%%agent`` cell's :class:`~nb_agent.jupyter.live.LiveRun`, when the
    notebook is edited live through the browser extension (``None``: file mode)."""

    def flush_before_blocking(self) -> None:
        if self.before_blocking is not None:
            try:
                self.before_blocking()
            except Exception:  # noqa: BLE001 - display trouble must not stop the code
                pass

    @property
    def user_ns(self) -> dict[str, Any]:
        return self.shell.user_ns

    def is_current_notebook(self, path: Path) -> bool:
        current = self.notebook_path()
        if current is None:
            return False
        try:
            return os.path.realpath(current) == os.path.realpath(path)
        except OSError:
            return False
