"""How a ``%%agent`` cell ends when it does not succeed: a one-line notice, no traceback.

IPython shows the ``_render_traceback_`` lines instead of a traceback; the cell still
counts as failed, so Run All and nbclient stop there. That line is the one place that says
how the run ended (it is all a terminal or nbclient shows of it): the run's rendering above
does not say it again.
"""

from __future__ import annotations

from typing import Any

from nb_agent.jupyter.view.glyphs import STOP


class CellEnding(Exception):
    """A ``%%agent`` cell's end shown as one line (``line``) instead of a traceback."""

    @property
    def line(self) -> str:
        return str(self)

    def _render_traceback_(self) -> list[str]:
        return [self.line]

    def output(self) -> dict[str, Any]:
        """The error as a notebook output (nbformat ``error``), as the kernel's reply shows it."""
        return {"output_type": "error", "ename": type(self).__name__, "evalue": str(self), "traceback": self._render_traceback_()}


class AgentInterrupted(CellEnding):
    """Ends an interrupted ``%%agent`` cell with a one-line notice instead of a traceback
    (the cell is marked failed, so Run All stops there)."""

    NOTICE = f"{STOP} Agent run interrupted. The transcript is saved; the next %%agent cell continues the conversation."

    def __init__(self) -> None:
        super().__init__(self.NOTICE)


class AgentRunFailed(CellEnding):
    """The run could not complete (the model could not be reached, a configuration error):
    a one-line notice, and a failed cell so Run All and nbclient do not go on as if it had."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason

    @property
    def line(self) -> str:
        return f"The agent run failed: {self.reason}"
