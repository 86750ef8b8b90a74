"""The Write tool: create a file or overwrite one the model has read (SPEC §8).

Encoding decision: a new file is written as UTF-8 (no BOM) with the content exactly as
given. An existing file keeps its encoding and BOM (a UTF-16LE file stays UTF-16LE, so
Windows tools that expect it still work), and a CRLF file stays CRLF when the new content
uses bare ``\\n`` (the model only ever sees ``\\n``); content that already contains
``\\r\\n`` is written as given.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from nb_agent.errors import ToolError
from nb_agent.messages import ContentBlock
from nb_agent.tools.base import ProgressCallback, Tool, ToolResult, ToolSession, ToolUseContext, ValidationResult
from nb_agent.tools.files.change_preview import FileChange, file_change, unified_diff
from nb_agent.tools.files.encoding import DEFAULT_FORMAT, DecodedText, TextFormat, read_text_file, write_text_file
from nb_agent.tools.files.freshness import NOT_READ_MESSAGE, record_file_state, staleness_error
from nb_agent.tools.files.paths import PathInput, expand_path, is_unc_path, rule_path, stat_regular_file, state_key


class WriteInput(PathInput):
    file_path: str = Field(description="The absolute path to the file to write (must be absolute, not relative)")
    content: str = Field(description="The content to write to the file")


class WriteResult(BaseModel):
    """What Write did; ``diff`` is a unified diff of an overwrite (empty for a new file)."""

    model_config = ConfigDict(frozen=True)
    type: Literal["create", "update"]
    file_path: str
    content: str
    diff: str = ""


class WriteTool(Tool[WriteInput]):
    """Write a whole file (create, or overwrite after a Read)."""

    name = "Write"
    input_model = WriteInput
    search_hint = "create or overwrite a file"

    def prompt(self) -> str:
        return _PROMPT

    def permission_rule_content(self, input: WriteInput) -> str | None:
        return rule_path(input.file_path, input._resolved_path)

    async def validate_input(self, input: WriteInput, ctx: ToolUseContext) -> ValidationResult:
        if is_unc_path(input.file_path):
            return ValidationResult.passed()  # no file access before the user approves
        try:
            path = expand_path(input.file_path, ctx.cwd)
            input._resolved_path = os.fspath(path)
            await asyncio.to_thread(_check_writable, path, ctx.session)
        except ToolError as exc:
            return ValidationResult.failed(str(exc))
        return ValidationResult.passed()

    async def change_preview(self, input: WriteInput, ctx: ToolUseContext) -> FileChange | None:
        if is_unc_path(input.file_path):
            return None  # no file access before the user approves
        path = expand_path(input.file_path, ctx.cwd)
        before = await asyncio.to_thread(_check_writable, path, ctx.session)
        return file_change(os.fspath(path), before.text if before is not None else None, input.content.replace("\r\n", "\n"))

    async def call(self, input: WriteInput, ctx: ToolUseContext, on_progress: ProgressCallback) -> ToolResult:
        path = expand_path(input.file_path, ctx.cwd)
        result = await asyncio.to_thread(_write, path, input.content, ctx.session)
        return ToolResult(data=result)

    def map_result_to_block(self, data: Any, tool_use_id: str) -> str | list[ContentBlock]:
        if isinstance(data, WriteResult):
            if data.type == "create":
                return f"File created successfully at: {data.file_path}"
            return f"The file {data.file_path} has been overwritten successfully."
        return super().map_result_to_block(data, tool_use_id)


def _check_writable(path: Path, session: ToolSession) -> DecodedText | None:
    """An existing ``path``'s decoded content (``None`` if new); raise if it may not be written."""
    if stat_regular_file(path) is None:
        return None
    state = session.read_file_state.get(state_key(path))
    if state is None or state.is_partial_view:
        raise ToolError(NOT_READ_MESSAGE)  # before reading: an unread file may be huge
    try:
        current = read_text_file(path)
    except OSError as exc:
        raise ToolError(f"Cannot read {path}: {exc.strerror}.") from exc
    error = staleness_error(session=session, key=state_key(path), path=path, current_text=current.text)
    if error:
        raise ToolError(error)
    return current


def _write(path: Path, content: str, session: ToolSession) -> WriteResult:
    # Checked again here: the file may have changed while the user was deciding.
    before = _check_writable(path, session)
    fmt = DEFAULT_FORMAT if before is None else _overwrite_format(before.format, content)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_text_file(path, content, fmt)
    except OSError as exc:
        raise ToolError(f"Cannot write {path}: {exc.strerror}.") from exc
    text = content.replace("\r\n", "\n")  # what a Read would now show
    record_file_state(session=session, key=state_key(path), path=path, text=text)
    shown = os.fspath(path)
    if before is None:
        return WriteResult(type="create", file_path=shown, content=content)
    return WriteResult(type="update", file_path=shown, content=content, diff=unified_diff(shown, before.text, text))


def _overwrite_format(existing: TextFormat, content: str) -> TextFormat:
    """Keep the file's encoding; keep CRLF only if the content does not bring its own ``\\r\\n``."""
    ending = existing.line_ending if "\r\n" not in content else "LF"
    return TextFormat(encoding=existing.encoding, line_ending=ending)


_PROMPT = """\
Writes a file to the local filesystem.

Usage:
- This tool will overwrite the existing file if there is one at the provided path.
- If this is an existing file, you MUST use the Read tool first to read the file's contents. This tool will fail if you did not read the file first.
- Parent directories are created as needed.
- ALWAYS prefer editing existing files with the Edit tool. NEVER write new files unless explicitly required.
- NEVER proactively create documentation files (*.md) or README files. Only create documentation files if explicitly requested by the User.
- Only use emojis if the user explicitly requests it. Avoid writing emojis to files unless asked."""
