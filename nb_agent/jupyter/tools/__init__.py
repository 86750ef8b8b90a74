"""The kernel tools: ExecuteCode, InspectVariables, NotebookEdit and ReproduceNotebook."""

from __future__ import annotations

from typing import Any

from nb_agent.jupyter.tools.bridge import KernelBridge
from nb_agent.jupyter.tools.execute_code import ExecuteCode, ExecuteCodeInput, ExecuteCodeResult
from nb_agent.jupyter.tools.inspect_variables import InspectVariables, variables_summary
from nb_agent.jupyter.tools.notebook_edit import NotebookEdit, NotebookEditInput, NotebookEditResult
from nb_agent.jupyter.tools.reproduce import ReproduceNotebook
from nb_agent.tools.base import Tool


def kernel_tools(bridge: KernelBridge) -> list[Tool[Any]]:
    """Fresh instances of the kernel tools, bound to ``bridge``."""
    return [ExecuteCode(bridge), InspectVariables(bridge), NotebookEdit(bridge), ReproduceNotebook(bridge)]


__all__ = [
    "ExecuteCode",
    "ExecuteCodeInput",
    "ExecuteCodeResult",
    "InspectVariables",
    "KernelBridge",
    "NotebookEdit",
    "NotebookEditInput",
    "NotebookEditResult",
    "ReproduceNotebook",
    "kernel_tools",
    "variables_summary",
]
