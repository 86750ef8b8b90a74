"""How a ``%%agent`` cell ends when it does not succeed: a one-line notice, no traceback.

IPython shows the ``_render_traceback_`` lines instead of a traceback; the cell still
counts as failed, so Run All and nbclient stop there.
"""

from __future__ import annotations


class AgentInterrupted(Exception):
    """Ends an interrupted ``%%agent`` cell with a one-line notice instead of a traceback
    (the cell is marked failed, so Run All stops there)."""

    NOTICE = "⏹ Agent run interrupted. The transcript is saved; the next %%agent cell continues the conversation."

    def __init__(self) -> None:
        super().__init__(self.NOTICE)

    def _render_traceback_(self) -> list[str]:
        return [self.NOTICE]


class AgentRunFailed(Exception):
    """The run could not complete (the model could not be reached, a configuration error):
    a one-line notice, and a failed cell so Run All and nbclient do not go on as if it had."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason

    def _render_traceback_(self) -> list[str]:
        return [f"The agent run failed: {self.reason}"]
