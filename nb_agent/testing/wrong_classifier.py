"""A Bash tool whose read-only classifier is wrong on purpose: it calls every command
read-only, so every command runs without asking. With it, a test shows what the sandbox
alone stops (a write, a connection, a secret read) when the classifier fails.
"""

from __future__ import annotations

from nb_agent.tools.bash.tool import BashInput, BashTool


class EverythingReadOnlyBash(BashTool):
    """``Bash`` that auto-allows everything (except ``dangerouslyDisableSandbox`` runs,
    which the real tool never treats as read-only either)."""

    def is_read_only(self, input: BashInput) -> bool:
        return not input.dangerouslyDisableSandbox

    def is_concurrency_safe(self, input: BashInput) -> bool:
        return True
