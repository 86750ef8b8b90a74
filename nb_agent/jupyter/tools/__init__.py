"""The kernel tools: ExecuteCode, InspectVariables and NotebookEdit."""

from __future__ import annotations

from typing import Any

from nb_agent.jupyter.tools.bridge import KernelBridge
from nb_agent.jupyter.tools.execute_code import ExecuteCode, ExecuteCodeInput, ExecuteCodeResult
from nb_agent.jupyter.tools.inspect_variables import InspectVariables, variables_summary
from nb_agent.jupyter.tools.notebook_edit import NotebookEdit, NotebookEditInput, NotebookEditResult
from nb_agent.tools.base import Tool


def kernel_tools(bridge: KernelBridge) -> list[Tool[Any]]:
    """Fresh instances of the three kernel tools, bound to ``bridge``."""
    return [ExecuteCode(bridge), InspectVariables(bridge), NotebookEdit(bridge)]


__all__ = [
    "ExecuteCode",
    "ExecuteCodeInput",
    "ExecuteCodeResult",
    "InspectVariables",
    "KernelBridge",
    "NotebookEdit",
    "NotebookEditInput",
    "NotebookEditResult",
    "kernel_tools",
    "variables_summary",
]
