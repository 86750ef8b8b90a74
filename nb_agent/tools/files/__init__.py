"""The file tools: Read, Write, Edit, Glob, Grep (SPEC §3, §8)."""

from __future__ import annotations

from typing import Any

from nb_agent.tools.base import Tool
from nb_agent.tools.files.edit import EditInput, EditResult, EditTool
from nb_agent.tools.files.glob import GlobInput, GlobResult, GlobTool
from nb_agent.tools.files.grep import GrepInput, GrepResult, GrepTool
from nb_agent.tools.files.read import (
    ImageFileView,
    NotebookFileView,
    PdfFileView,
    ReadInput,
    ReadTool,
    ReadView,
    TextFileView,
)
from nb_agent.tools.files.write import WriteInput, WriteResult, WriteTool


def file_tools() -> list[Tool[Any]]:
    """One instance of each file tool, in the order they are usually introduced."""
    return [ReadTool(), WriteTool(), EditTool(), GlobTool(), GrepTool()]


__all__ = [
    "EditInput",
    "EditResult",
    "EditTool",
    "GlobInput",
    "GlobResult",
    "GlobTool",
    "GrepInput",
    "GrepResult",
    "GrepTool",
    "ImageFileView",
    "NotebookFileView",
    "PdfFileView",
    "ReadInput",
    "ReadTool",
    "ReadView",
    "TextFileView",
    "WriteInput",
    "WriteResult",
    "WriteTool",
    "file_tools",
]
