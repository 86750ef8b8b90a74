"""What the kernel tools share with the running session: the shell, the notebook path,
and a sink for output that must reach the screen while user code blocks the loop."""

from __future__ import annotations

import ast
import logging
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nb_agent.jupyter.user_namespace import user_variables

log = logging.getLogger(__name__)


@dataclass(kw_only=True)
class KernelBridge:
    shell: Any
    """The ``InteractiveShell``: its ``user_ns`` is where code runs and variables live."""
    notebook_path: Callable[[], Path | None] = lambda: None
    """The notebook this kernel belongs to, when known."""
    live_output: Callable[[str, dict[str, Any]], None] | None = None
    """``(tool_name, progress)``: shown at once, even while synchronous code runs (progress
    as a tool reports it: ``output_tail``, and ``compute``, a computation's line)."""
    before_blocking: Callable[[], None] | None = None
    """Called right before synchronous user code blocks the event loop (flush the view)."""
    live: Callable[[], Any] = lambda: None
    """The running ``%%agent`` cell's :class:`~nb_agent.jupyter.live.LiveRun`, when the
    notebook is edited live through the browser extension (``None``: file mode)."""
    notebook_elsewhere: Callable[[str, Path], str | None] = lambda raw, cwd: None
    """``(path as written, cwd)`` for a path that is no file here: the message saying it is
    the user's notebook on the Jupyter server, reachable only through its page (or ``None``)."""
    namespace: Any = None
    """The :class:`~nb_agent.checkpoints.namespace.NamespaceTracker` that checkpoints the
    variables around each ExecuteCode call (``None``: no checkpoints)."""

    def watch_namespace(self, tree: ast.Module) -> NamespaceWatch:
        """Checkpoint the user's variables before code ``tree`` runs; ``finish()`` after it."""
        return NamespaceWatch.start(self, tree)

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


class NamespaceWatch:
    """One call's namespace checkpoint: started before the code runs, finished after it
    (whatever happened), giving the lines of what changed. A tracker that fails never
    stops the user's code: the call then says nothing about its variables."""

    def __init__(self, bridge: KernelBridge, pending: Any) -> None:
        self.bridge, self.pending = bridge, pending

    @classmethod
    def start(cls, bridge: KernelBridge, tree: ast.Module) -> NamespaceWatch:
        tracker = bridge.namespace
        if tracker is None:
            return cls(bridge, None)
        from nb_agent.checkpoints.namespace import scan_code

        try:
            return cls(bridge, tracker.begin_call(user_variables(bridge.shell), scan_code(tree)))
        except Exception:  # no checkpoint for this call, the code still runs
            log.warning("namespace checkpoint failed", exc_info=True)
            return cls(bridge, None)

    def finish(self) -> list[str]:
        if self.pending is None:
            return []
        from nb_agent.checkpoints.namespace import call_lines

        try:
            record = self.bridge.namespace.end_call(self.pending, user_variables(self.bridge.shell))
        except Exception:
            log.warning("namespace comparison failed", exc_info=True)
            return []
        finally:
            self.pending = None
        return call_lines(list(record.changes.values()))
