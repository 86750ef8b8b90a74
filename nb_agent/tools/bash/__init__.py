"""The Bash tool and its read-only command classifier (SPEC §8)."""

from typing import Any

from nb_agent.tools.base import Tool
from nb_agent.tools.bash.read_only import is_read_only_command
from nb_agent.tools.bash.background import BackgroundShells, BashOutputTool, KillShellTool
from nb_agent.tools.bash.tool import BashTool


def bash_tools() -> list[Tool[Any]]:
    """Fresh instances of Bash, BashOutput and KillShell (they share state via the session)."""
    return [BashTool(), BashOutputTool(), KillShellTool()]


__all__ = ["is_read_only_command", "BackgroundShells", "BashOutputTool", "BashTool", "KillShellTool", "bash_tools"]
