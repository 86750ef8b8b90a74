"""The Edit tool: exact string replacement in a file (SPEC §8, seed 003 §3.6).

The validation chain lives in :mod:`nb_agent.tools.files.edit_validation`; this module
applies a validated plan, keeps the file's encoding and line endings, records the new
content in the file-state cache, and reports a snippet (for the model) and a unified
diff (for UIs).
"""

from __future__ import annotations

import asyncio
import os
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from nb_agent.errors import ToolError
from nb_agent.messages import ContentBlock
from nb_agent.tools.base import ProgressCallback, Tool, ToolResult, ToolSession, ToolUseContext, ValidationResult
from nb_agent.tools.files.change_preview import FileChange, file_change, unified_diff
from nb_agent.tools.files.edit_validation import EditPlan, plan_edit
from nb_agent.tools.files.encoding import display_text, split_lines, write_text_file
from nb_agent.tools.files.freshness import record_file_state
from nb_agent.tools.files.paths import PathInput, expand_path, is_unc_path, rule_path
from nb_agent.tools.files.read import MAX_LINE_CHARS, number_lines

SNIPPET_CONTEXT_LINES = 4


class EditInput(PathInput):
    file_path: str = Field(description="The absolute path to the file to modify")
    old_string: str = Field(description="The text to replace")
    new_string: str = Field(description="The text to replace it with (must be different from old_string)")
    replace_all: bool = Field(default=False, description="Replace all occurrences of old_string (default false)")


class EditResult(BaseModel):
    """What Edit did. ``snippet`` is shown to the model, ``diff`` is for UIs."""

    model_config = ConfigDict(frozen=True)
    file_path: str
    old_string: str
    """As it was in the file (its quotes may differ from the input's)."""
    new_string: str
    replace_all: bool
    replacements: int
    created: bool
    snippet: str
    diff: str


class EditTool(Tool[EditInput]):
    """Replace an exact string in a file the model has read."""

    name = "Edit"
    input_model = EditInput
    search_hint = "modify file contents in place"
    max_result_size_chars = 100_000

    def prompt(self) -> str:
        return _PROMPT

    def permission_rule_content(self, input: EditInput) -> str | None:
        return rule_path(input.file_path, input._resolved_path)

    async def validate_input(self, input: EditInput, ctx: ToolUseContext) -> ValidationResult:
        if is_unc_path(input.file_path):
            return ValidationResult.passed()  # ⑤ no file access before the user approves
        try:
            input._resolved_path = os.fspath(expand_path(input.file_path, ctx.cwd))
            await asyncio.to_thread(_plan, input, ctx.session)
        except ToolError as exc:
            return ValidationResult.failed(str(exc))
        return ValidationResult.passed()

    async def change_preview(self, input: EditInput, ctx: ToolUseContext) -> FileChange | None:
        if is_unc_path(input.file_path):
            return None  # no file access before the user approves
        plan = await asyncio.to_thread(_plan, input, ctx.session)
        shown = os.fspath(plan.path)
        return file_change(shown, display_text(plan.original) if plan.exists else None, display_text(plan.updated))

    async def call(self, input: EditInput, ctx: ToolUseContext, on_progress: ProgressCallback) -> ToolResult:
        result = await asyncio.to_thread(_apply, input, ctx.session)
        return ToolResult(data=result)

    def map_result_to_block(self, data: Any, tool_use_id: str) -> str | list[ContentBlock]:
        if not isinstance(data, EditResult):
            return super().map_result_to_block(data, tool_use_id)
        if data.created:
            return f"File created successfully at: {data.file_path}"
        head = f"The file {data.file_path} has been updated."
        if data.replace_all:
            head += f" All {data.replacements} occurrences were replaced."
        return f"{head} Here's the result of running `cat -n` on a snippet of the edited file:\n{data.snippet}"


def _plan(input: EditInput, session: ToolSession) -> EditPlan:
    return plan_edit(
        file_path=input.file_path,
        old_string=input.old_string,
        new_string=input.new_string,
        replace_all=input.replace_all,
        session=session,
    )


def _apply(input: EditInput, session: ToolSession) -> EditResult:
    # Validated again: the file may have changed while the user was deciding.
    plan = _plan(input, session)
    try:
        if not plan.exists:
            plan.path.parent.mkdir(parents=True, exist_ok=True)
        write_text_file(plan.path, plan.updated, plan.format)
    except OSError as exc:
        raise ToolError(f"Cannot write {plan.path}: {exc.strerror}.") from exc
    record_file_state(session=session, key=plan.key, path=plan.path, text=plan.updated)
    shown = os.fspath(plan.path)
    return EditResult(
        file_path=shown,
        old_string=display_text(plan.old_string),
        new_string=display_text(plan.new_string),
        replace_all=plan.replace_all,
        replacements=plan.occurrences if plan.replace_all else 1,
        created=not plan.exists,
        snippet=edit_snippet(plan),
        diff=display_text(unified_diff(shown, plan.original, plan.updated)),
    )


def edit_snippet(plan: EditPlan) -> str:
    """``cat -n`` lines around the (first) replacement, in the edited file."""
    index = plan.original.find(plan.old_string) if plan.old_string else 0
    first = plan.original.count("\n", 0, max(index, 0)) + 1
    last = first + max(len(split_lines(plan.new_string)), 1) - 1
    lines = split_lines(plan.updated)
    start = max(first - SNIPPET_CONTEXT_LINES, 1)
    end = min(last + SNIPPET_CONTEXT_LINES, len(lines))
    shown = (display_text(line.rstrip("\n"))[:MAX_LINE_CHARS] for line in lines[start - 1 : end])
    return number_lines(shown, start)


_PROMPT = """\
Performs exact string replacements in files.

Usage:
- You must use your `Read` tool at least once in the conversation before editing. This tool will error if you attempt an edit without reading the file.
- When editing text from Read tool output, ensure you preserve the exact indentation (tabs/spaces) as it appears AFTER the line number prefix. The line number prefix format is: spaces + line number + tab. Everything after that tab is the actual file content to match. Never include any part of the line number prefix in the old_string or new_string.
- ALWAYS prefer editing existing files in the codebase. NEVER write new files unless explicitly required.
- Only use emojis if the user explicitly requests it. Avoid adding emojis to files unless asked.
- The edit will FAIL if `old_string` is not unique in the file. Either provide a larger string with more surrounding context to make it unique or use `replace_all` to change every instance of `old_string`.
- Use `replace_all` for replacing and renaming strings across the file. This parameter is useful if you want to rename a variable for instance.
- To create a new file, use an empty `old_string` with the full content as `new_string`. Jupyter notebooks (.ipynb) cannot be edited with this tool: use NotebookEdit."""
