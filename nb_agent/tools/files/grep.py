"""The Grep tool: ripgrep over the session's files (SPEC §3, Claude Code's Grep).

Hidden files are searched, ``.gitignore`` is respected, VCS directories are skipped,
and lines are capped at 500 columns. ``files_with_matches`` lists the newest files first.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from nb_agent.errors import ToolError
from nb_agent.messages import ContentBlock
from nb_agent.tools.base import ProgressCallback, Tool, ToolResult, ToolUseContext, ValidationResult
from nb_agent.tools.files.paths import PathInput, denied_read_globs, expand_path, rule_path
from nb_agent.tools.files.recency import RecencyCollector
from nb_agent.tools.files.ripgrep import VCS_DIRECTORIES, RgOutput, run_rg

OutputMode = Literal["content", "files_with_matches", "count"]
MAX_COLUMNS = 500


class GrepInput(PathInput):
    pattern: str = Field(description="The regular expression pattern to search for in file contents")
    path: str | None = Field(
        default=None, description="File or directory to search in (rg PATH). Defaults to current working directory."
    )
    glob: str | None = Field(
        default=None, description='Glob pattern to filter files (e.g. "*.js", "*.{ts,tsx}") - maps to rg --glob'
    )
    output_mode: OutputMode = Field(
        default="files_with_matches",
        description='Output mode: "content" shows matching lines (supports -A/-B/-C context, -n line numbers, '
        'head_limit), "files_with_matches" shows file paths (supports head_limit), "count" shows match counts '
        '(supports head_limit). Defaults to "files_with_matches".',
    )
    before: int | None = Field(
        default=None, ge=0, alias="-B",
        description='Number of lines to show before each match (rg -B). Requires output_mode: "content", ignored otherwise.',
    )  # fmt: skip
    after: int | None = Field(
        default=None, ge=0, alias="-A",
        description='Number of lines to show after each match (rg -A). Requires output_mode: "content", ignored otherwise.',
    )  # fmt: skip
    context: int | None = Field(
        default=None, ge=0, alias="-C",
        description='Number of lines to show before and after each match (rg -C). Requires output_mode: "content", '
        "ignored otherwise.",
    )  # fmt: skip
    line_numbers: bool | None = Field(
        default=None, alias="-n",
        description='Show line numbers in output (rg -n). Requires output_mode: "content", ignored otherwise. '
        "Defaults to true.",
    )  # fmt: skip
    case_insensitive: bool | None = Field(default=None, alias="-i", description="Case insensitive search (rg -i)")
    type: str | None = Field(
        default=None,
        description="File type to search (rg --type). Common types: js, py, rust, go, java, etc. "
        "More efficient than include for standard file types.",
    )
    head_limit: int | None = Field(
        default=None, ge=0,
        description='Limit output to first N lines/entries, equivalent to "| head -N". Works across all output modes: '
        "content (limits output lines), files_with_matches (limits file paths), count (limits count entries). "
        "When unspecified or 0, shows all results.",
    )  # fmt: skip
    multiline: bool | None = Field(
        default=None,
        description="Enable multiline mode where . matches newlines and patterns can span lines "
        "(rg -U --multiline-dotall). Default: false.",
    )


class GrepResult(BaseModel):
    """Grep's output. ``filenames`` for files_with_matches/count, ``content`` for content/count."""

    model_config = ConfigDict(frozen=True)
    mode: OutputMode
    filenames: list[str] = []
    num_files: int = 0
    content: str = ""
    num_lines: int = 0
    num_matches: int = 0
    applied_limit: int | None = None
    """Set when ``head_limit`` cut the results."""
    truncated: bool = False
    """ripgrep's output exceeded the read cap and was cut."""


def split_glob(glob: str) -> list[str]:
    """The ``glob`` field as rg ``--glob`` patterns: split on spaces and commas, braces kept."""
    patterns: list[str] = []
    for raw in glob.split():
        if "{" in raw and "}" in raw:
            patterns.append(raw)
        else:
            patterns += [p for p in raw.split(",") if p]
    return patterns


def build_rg_args(input: GrepInput, search_path: str) -> list[str]:
    """The ripgrep command line (after ``rg``) for ``input`` searching ``search_path``."""
    args = ["--hidden"]
    for directory in VCS_DIRECTORIES:
        args += ["--glob", f"!{directory}"]
    args += ["--max-columns", str(MAX_COLUMNS)]
    if input.multiline:
        args += ["-U", "--multiline-dotall"]
    if input.case_insensitive:
        args.append("-i")
    if input.output_mode == "files_with_matches":
        args.append("-l")
    elif input.output_mode == "count":
        args.append("-c")
    else:
        if input.line_numbers is not False:
            args.append("-n")
        if input.context is not None:
            args += ["-C", str(input.context)]
        else:
            if input.before is not None:
                args += ["-B", str(input.before)]
            if input.after is not None:
                args += ["-A", str(input.after)]
    # -e keeps a pattern that starts with "-" from being read as a flag.
    args += ["-e", input.pattern] if input.pattern.startswith("-") else [input.pattern]
    if input.type:
        args += ["--type", input.type]
    for pattern in split_glob(input.glob or ""):
        args += ["--glob", pattern]
    args.append(search_path)
    return args


class GrepTool(Tool[GrepInput]):
    """Search file contents with ripgrep."""

    name = "Grep"
    input_model = GrepInput
    repeats_its_content = True  # the structured output is its text again: kept once
    search_hint = "search file contents with regex (ripgrep)"
    max_result_size_chars = 20_000

    def prompt(self) -> str:
        return _PROMPT

    def is_read_only(self, input: GrepInput) -> bool:
        return True

    def is_concurrency_safe(self, input: GrepInput) -> bool:
        return True

    def permission_rule_content(self, input: GrepInput) -> str | None:
        return rule_path(input.path or ".", input._resolved_path)

    async def validate_input(self, input: GrepInput, ctx: ToolUseContext) -> ValidationResult:
        try:
            path = expand_path(input.path or ".", ctx.cwd)
        except ToolError as exc:
            return ValidationResult.failed(str(exc))
        input._resolved_path = os.fspath(path)
        if not path.exists():
            return ValidationResult.failed(f"Path does not exist: {path}. Current working directory: {ctx.cwd}.")
        return ValidationResult.passed()

    async def call(self, input: GrepInput, ctx: ToolUseContext, on_progress: ProgressCallback) -> ToolResult:
        # ripgrep anchors `--glob` exclusions at its working directory, which the OS gives
        # as the real path: a search path spelled through a symlink (a symlinked project,
        # /proc/self/root/...) would escape the anchored Read deny exclusions.
        path = Path(os.path.realpath(expand_path(input.path or ".", ctx.cwd)))
        run_in = path if path.is_dir() else path.parent
        args = build_rg_args(input, os.fspath(path))
        for glob in denied_read_globs(ctx, run_in):
            args[-1:-1] = ["--glob", glob]  # last, so they win over the input's globs
        # files_with_matches is sorted newest first: stat the files while rg still searches.
        found = RecencyCollector() if input.output_mode == "files_with_matches" else None
        on_lines = found.add if found is not None else None
        output = await run_rg(args, cwd=run_in, abort_signal=ctx.abort_signal, on_lines=on_lines)
        if output.returncode == 2 and not output.stdout:
            raise ToolError(f"ripgrep failed: {_first_error(output)}")
        limit = input.head_limit or None
        if found is not None:
            return ToolResult(data=_limited_files(found.newest(), limit, output.truncated))
        lines = _output_lines(output)
        if input.output_mode == "count":
            return ToolResult(data=_count_result(lines, limit, output.truncated))
        shown = lines[:limit] if limit else lines
        return ToolResult(
            data=GrepResult(
                mode="content",
                content="\n".join(shown),
                num_lines=len(shown),
                applied_limit=limit if limit and len(lines) > limit else None,
                truncated=output.truncated,
            )
        )

    def map_result_to_block(self, data: Any, tool_use_id: str) -> str | list[ContentBlock]:
        if not isinstance(data, GrepResult):
            return super().map_result_to_block(data, tool_use_id)
        notes = []
        if data.applied_limit is not None:
            notes.append(f"(Results limited to the first {data.applied_limit} by head_limit.)")
        if data.truncated:
            notes.append("(ripgrep's output was too large and was cut; narrow the search.)")
        tail = "\n\n" + "\n".join(notes) if notes else ""
        if data.mode == "files_with_matches":
            if data.num_files == 0:
                return "No files found"
            plural = "file" if data.num_files == 1 else "files"
            return f"Found {data.num_files} {plural}\n" + "\n".join(data.filenames) + tail
        if not data.content:
            return "No matches found"
        if data.mode == "count":
            occurrences = "occurrence" if data.num_matches == 1 else "occurrences"
            files = "file" if data.num_files == 1 else "files"
            tail = f"\n\nFound {data.num_matches} total {occurrences} across {data.num_files} {files}." + tail
        return data.content + tail


def _output_lines(output: RgOutput) -> list[str]:
    lines = output.stdout.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line.removesuffix("\r") for line in lines]


def _limited_files(files: list[str], limit: int | None, truncated: bool) -> GrepResult:
    shown = files[:limit] if limit else files
    return GrepResult(
        mode="files_with_matches",
        filenames=shown,
        num_files=len(files),
        applied_limit=limit if limit and len(files) > limit else None,
        truncated=truncated,
    )


_COUNT_LINE = re.compile(r"^(.*):(\d+)$")


def _count_result(lines: list[str], limit: int | None, truncated: bool) -> GrepResult:
    total = 0
    files: list[str] = []
    for line in lines:
        match = _COUNT_LINE.match(line)
        if match:  # "path:count"
            files.append(match.group(1))
            total += int(match.group(2))
        elif line.isdigit():  # a single file searched: rg prints just the count
            total += int(line)
            files.append("")
    shown = lines[:limit] if limit else lines
    return GrepResult(
        mode="count",
        filenames=[f for f in files if f],
        num_files=len(files),
        content="\n".join(shown),
        num_lines=len(shown),
        num_matches=total,
        applied_limit=limit if limit and len(lines) > limit else None,
        truncated=truncated,
    )


def _first_error(output: RgOutput) -> str:
    text = output.stderr.strip()
    return text[:2000] if text else f"exit status {output.returncode}"


_PROMPT = """\
A powerful search tool built on ripgrep

Usage:
- ALWAYS use Grep for search tasks. NEVER invoke `grep` or `rg` as a Bash command. The Grep tool has been optimized for correct permissions and access.
- Supports full regex syntax (e.g., "log.*Error", "function\\s+\\w+")
- Filter files with glob parameter (e.g., "*.js", "**/*.tsx") or type parameter (e.g., "js", "py", "rust")
- Output modes: "content" shows matching lines, "files_with_matches" shows only file paths (default, newest first), "count" shows match counts
- Pattern syntax: Uses ripgrep (not grep) - literal braces need escaping (use `interface\\{\\}` to find `interface{}` in Go code)
- Multiline matching: By default patterns match within single lines only. For cross-line patterns like `struct \\{[\\s\\S]*?field`, use `multiline: true`
- Hidden files are searched; files ignored by .gitignore are not"""
