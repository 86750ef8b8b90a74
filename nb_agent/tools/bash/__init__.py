"""The Bash tool, its background shells and its OS sandbox (SPEC §8).

What a command line means (parse, wrappers, read-only classifier, read scope) is
:mod:`nb_agent.shell`; this package runs commands.
"""

from typing import Any

from nb_agent.tools.base import Tool
from nb_agent.tools.bash.background import BackgroundShells, BashOutputTool, KillShellTool
from nb_agent.tools.bash.tool import BashTool


def bash_tools() -> list[Tool[Any]]:
    """Fresh instances of Bash, BashOutput and KillShell (they share state via the session)."""
    return [BashTool(), BashOutputTool(), KillShellTool()]


__all__ = ["BackgroundShells", "BashOutputTool", "BashTool", "KillShellTool", "bash_tools"]
