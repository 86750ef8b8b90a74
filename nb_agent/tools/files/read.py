"""The Read tool: text files with line numbers, images, PDFs and notebooks (SPEC §8).

Every text or notebook read is recorded in the session's file-state cache; Write and
Edit refuse a file the model has not read, or that changed on disk since.
"""

from __future__ import annotations

import asyncio
import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from nb_agent.errors import ToolError
from nb_agent.messages import ContentBlock
from nb_agent.tools.base import FileState, ProgressCallback, Tool, ToolResult, ToolUseContext, ValidationResult
from nb_agent.tools.files.encoding import decode_bytes, display_text, iter_lines
from nb_agent.tools.files.media import (
    BINARY_EXTENSIONS,
    IMAGE_MEDIA_TYPES,
    PDF_EXTENSION,
    binary_file_message,
    document_block,
    image_block,
    load_image,
    load_pdf,
    looks_binary,
)
from nb_agent.tools.files.notebook_view import render_notebook
from nb_agent.tools.files.paths import PathInput, expand_path, missing_file_message, rule_path, state_key

DEFAULT_LINE_LIMIT = 2000
MAX_LINE_CHARS = 2000
MAX_FILE_BYTES = 1 << 30
"""1 GiB: larger files are refused whatever the range."""
MAX_OUTPUT_CHARS = 100_000
"""About 25,000 tokens: a text read is cut to the lines that fit, a notebook refused."""
MAX_NOTEBOOK_BYTES = 64 * 1024 * 1024

BLOCKED_DEVICE_PATHS = frozenset(
    {
        "/dev/zero", "/dev/random", "/dev/urandom", "/dev/full", "/dev/stdin", "/dev/tty",
        "/dev/console", "/dev/stdout", "/dev/stderr", "/dev/fd/0", "/dev/fd/1", "/dev/fd/2",
        "/proc/self/fd/0", "/proc/self/fd/1", "/proc/self/fd/2",
    }
)  # fmt: skip
"""Paths that would block forever or never end."""

EMPTY_FILE_NOTE = "<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>"


class ReadInput(PathInput):
    file_path: str = Field(description="The absolute path to the file to read")
    offset: int | None = Field(
        default=None,
        ge=0,
        description="The line number to start reading from. Only provide if the file is too large to read at once",
    )
    limit: int | None = Field(
        default=None,
        gt=0,
        description="The number of lines to read. Only provide if the file is too large to read at once.",
    )


class _View(BaseModel):
    model_config = ConfigDict(frozen=True)
    file_path: str


class TextFileView(_View):
    """A text read: ``content`` is what the model sees (numbered lines and notes)."""

    kind: Literal["text"] = "text"
    content: str
    start_line: int
    num_lines: int
    total_lines: int


class ImageFileView(_View):
    kind: Literal["image"] = "image"
    media_type: str
    data: str
    """Base64 image data."""


class PdfFileView(_View):
    kind: Literal["pdf"] = "pdf"
    data: str
    """Base64 PDF data."""


class NotebookFileView(_View):
    kind: Literal["notebook"] = "notebook"
    blocks: list[dict[str, Any]]
    num_cells: int


ReadView = TextFileView | ImageFileView | PdfFileView | NotebookFileView


@dataclass(frozen=True, kw_only=True)
class _Outcome:
    view: ReadView
    state: FileState | None


def number_lines(lines: Iterable[str], start_line: int) -> str:
    """``cat -n`` style: the line number right-aligned in 6 columns, a tab, the line."""
    return "\n".join(f"{n:>6}\t{line}" for n, line in enumerate(lines, start_line))


class ReadTool(Tool[ReadInput]):
    """Read a file: text (numbered lines), image, PDF or Jupyter notebook."""

    name = "Read"
    input_model = ReadInput
    repeats_its_content = True  # the structured output is its text again: kept once
    search_hint = "read file contents, images, PDFs, notebooks"
    max_result_size_chars = float("inf")  # never persisted: a Read of the persisted file would loop

    def prompt(self) -> str:
        return _PROMPT

    def is_read_only(self, input: ReadInput) -> bool:
        return True

    def is_concurrency_safe(self, input: ReadInput) -> bool:
        return True

    def permission_rule_content(self, input: ReadInput) -> str | None:
        return rule_path(input.file_path, input._resolved_path)

    async def validate_input(self, input: ReadInput, ctx: ToolUseContext) -> ValidationResult:
        try:
            path = expand_path(input.file_path, ctx.cwd)
        except ToolError as exc:
            return ValidationResult.failed(str(exc))
        input._resolved_path = os.fspath(path)
        if str(path) in BLOCKED_DEVICE_PATHS:
            return ValidationResult.failed(f"Cannot read {path}: it is a device that would block or never end.")
        if path.suffix.lower() in BINARY_EXTENSIONS:
            return ValidationResult.failed(binary_file_message(path))
        return ValidationResult.passed()

    async def call(self, input: ReadInput, ctx: ToolUseContext, on_progress: ProgressCallback) -> ToolResult:
        path = expand_path(input.file_path, ctx.cwd)
        # File I/O off the event loop: the kernel stays responsive, parallel Reads overlap.
        outcome = await asyncio.to_thread(read_path, path, offset=input.offset, limit=input.limit, cwd=ctx.cwd)
        if outcome.state is not None:
            ctx.session.read_file_state[state_key(path)] = outcome.state
        return ToolResult(data=outcome.view)

    def map_result_to_block(self, data: Any, tool_use_id: str) -> str | list[ContentBlock]:
        if isinstance(data, TextFileView):
            return data.content
        if isinstance(data, ImageFileView):
            return [image_block(data.media_type, data.data)]
        if isinstance(data, PdfFileView):
            return [document_block(data.data)]
        if isinstance(data, NotebookFileView):
            return data.blocks
        return super().map_result_to_block(data, tool_use_id)


def read_path(path: Path, *, offset: int | None, limit: int | None, cwd: Path) -> _Outcome:
    """Read ``path`` as the Read tool shows it (blocking; run in a thread)."""
    info = _stat_regular_file(path, cwd)
    suffix = path.suffix.lower()
    shown = os.fspath(path)
    if suffix in IMAGE_MEDIA_TYPES:
        media_type, data = load_image(path)
        return _Outcome(view=ImageFileView(file_path=shown, media_type=media_type, data=data), state=None)
    if suffix == PDF_EXTENSION:
        return _Outcome(view=PdfFileView(file_path=shown, data=load_pdf(path)), state=None)
    if suffix == ".ipynb":
        return _read_notebook(path, info)
    if suffix in BINARY_EXTENSIONS:
        raise ToolError(binary_file_message(path))
    with open(path, "rb") as f:
        if looks_binary(f.read(8192)):
            raise ToolError(binary_file_message(path))
    return _read_text(path, info, offset=offset, limit=limit)


def _stat_regular_file(path: Path, cwd: Path) -> os.stat_result:
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise ToolError(missing_file_message(path, cwd)) from None
    except NotADirectoryError:
        raise ToolError(f"File does not exist: {path} (a parent is not a directory).") from None
    except OSError as exc:
        raise ToolError(f"Cannot access {path}: {exc.strerror}.") from exc
    if stat.S_ISDIR(info.st_mode):
        raise ToolError(f"{path} is a directory, not a file. Use Glob or Bash `ls` to list its contents.")
    if not stat.S_ISREG(info.st_mode):
        raise ToolError(f"{path} is not a regular file (a device, FIFO or socket); it cannot be read.")
    if info.st_size > MAX_FILE_BYTES:
        raise ToolError(
            f"File is too large to read ({info.st_size / (1 << 30):.1f} GiB; the maximum is 1 GiB). "
            "Use Grep to search it, or Bash (head, tail, sed -n) to look at parts of it."
        )
    return info


def _read_notebook(path: Path, info: os.stat_result) -> _Outcome:
    if info.st_size > MAX_NOTEBOOK_BYTES:
        raise ToolError(
            f"Notebook is too large to read ({info.st_size:,} bytes). Inspect it with code (json/nbformat)."
        )
    decoded = decode_bytes(path.read_bytes())
    blocks, num_cells = render_notebook(decoded.text)
    text_chars = sum(len(b.get("text", "")) for b in blocks)
    if text_chars > MAX_OUTPUT_CHARS:
        raise ToolError(
            f"Notebook content ({text_chars:,} characters) exceeds the maximum of {MAX_OUTPUT_CHARS:,}. "
            "Inspect specific cells with code (json/nbformat), or clear large outputs first."
        )
    state = FileState(content=display_text(decoded.text), timestamp=info.st_mtime)
    return _Outcome(view=NotebookFileView(file_path=os.fspath(path), blocks=blocks, num_cells=num_cells), state=state)


@dataclass(frozen=True, kw_only=True)
class _LineWindow:
    lines: list[str]
    """The selected lines, each with its ``\\n`` (``\\r\\n`` normalized)."""
    total_lines: int


def _read_window(path: Path, start_line: int, max_lines: int) -> _LineWindow:
    """Stream the file, keeping lines ``start_line ..`` (at most ``max_lines``) and counting all."""
    selected: list[str] = []
    total = 0
    end = start_line + max_lines
    with open(path, "rb") as f:
        _, lines = iter_lines(f)
        for total, line in enumerate(lines, start=1):
            if total < start_line:
                continue
            if total >= end:
                total += sum(1 for _ in lines)  # count the rest without keeping it
                break
            selected.append(line[:-2] + "\n" if line.endswith("\r\n") else line)
    return _LineWindow(lines=selected, total_lines=total)


def _read_text(path: Path, info: os.stat_result, *, offset: int | None, limit: int | None) -> _Outcome:
    start_line = max(offset or 1, 1)
    window = _read_window(path, start_line, limit or DEFAULT_LINE_LIMIT)
    shown = os.fspath(path)
    total = window.total_lines
    if total == 0:
        state = FileState(content="", timestamp=info.st_mtime)
        view = TextFileView(file_path=shown, content=EMPTY_FILE_NOTE, start_line=1, num_lines=0, total_lines=0)
        return _Outcome(view=view, state=state)
    if not window.lines:
        note = (
            "<system-reminder>Warning: the file exists but is shorter than the provided offset "
            f"({start_line}). The file has {total} lines.</system-reminder>"
        )
        view = TextFileView(file_path=shown, content=note, start_line=start_line, num_lines=0, total_lines=total)
        return _Outcome(view=view, state=None)
    lines, body, cut = _fit_numbered(window.lines, start_line)
    last_line = start_line + len(lines) - 1
    text = "".join(lines)
    notes: list[str] = []
    if start_line > 1 or last_line < total:
        notes.append(f"(Showing lines {start_line}-{last_line} of {total}. Use offset and limit to read other parts.)")
    if cut:
        notes.append(f"(Lines longer than {MAX_LINE_CHARS} characters were cut.)")
    if display_text(text) != text:
        notes.append("(The file is not valid UTF-8; undecodable bytes are shown as \ufffd.)")
    content = body + ("\n\n" + "\n".join(notes) if notes else "")
    full = start_line == 1 and last_line == total
    state = FileState(
        content=display_text(text),
        timestamp=info.st_mtime,
        offset=None if full else start_line,
        limit=None if full else len(lines),
    )
    view = TextFileView(
        file_path=shown, content=content, start_line=start_line, num_lines=len(lines), total_lines=total
    )
    return _Outcome(view=view, state=state)


def _fit_numbered(lines: list[str], start_line: int) -> tuple[list[str], str, bool]:
    """Number lines (cutting long ones) until the output cap: ``(kept lines, text, any cut)``."""
    rendered: list[str] = []
    size = 0
    cut = False
    for number, line in enumerate(lines, start_line):
        shown = display_text(line.rstrip("\n").removesuffix("\r"))
        if len(shown) > MAX_LINE_CHARS:
            shown, cut = shown[:MAX_LINE_CHARS] + "…", True
        entry = f"{number:>6}\t{shown}"
        size += len(entry) + 1
        if rendered and size > MAX_OUTPUT_CHARS:
            break
        rendered.append(entry)
    return lines[: len(rendered)], "\n".join(rendered), cut


_PROMPT = """\
Reads a file from the local filesystem. You can access any file directly by using this tool.
Assume this tool is able to read all files on the machine. If the user provides a path to a file, assume that path is valid. It is okay to read a file that does not exist; an error will be returned.

Usage:
- The file_path parameter should be an absolute path; a relative path is resolved against the current working directory
- By default, it reads up to 2000 lines starting from the beginning of the file
- You can optionally specify a line offset and limit (especially handy for long files), but it's recommended to read the whole file by not providing these parameters
- Any lines longer than 2000 characters will be truncated
- Results are returned using cat -n format, with line numbers starting at 1
- This tool can read images (PNG, JPG, GIF, WebP); the image is shown to you visually
- This tool can read PDF files (.pdf)
- This tool can read Jupyter notebooks (.ipynb files) and returns all cells with their outputs, combining code, text, and visualizations
- This tool can only read files, not directories. To list a directory, use Glob or the Bash tool's ls
- You can call multiple tools in a single response. It is always better to speculatively read multiple potentially useful files in parallel
- If you read a file that exists but has empty contents you will receive a system reminder warning in place of file contents"""
