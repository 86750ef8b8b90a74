"""The Glob tool: files by name pattern, newest first (Claude Code's Glob).

Backed by ``rg --files --glob`` (gitignore-style globs: ``*.py`` matches at any depth,
``src/*.py`` only directly under ``src``). Like Claude Code it lists hidden and
git-ignored files too (the file asked for is often a data file or ``.env`` that git
ignores); VCS directories are skipped.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from nb_agent.errors import ToolError
from nb_agent.messages import ContentBlock
from nb_agent.tools.base import ProgressCallback, Tool, ToolResult, ToolUseContext, ValidationResult
from nb_agent.tools.files.paths import PathInput, denied_read_globs, expand_path, rule_path
from nb_agent.tools.files.recency import RecencyCollector
from nb_agent.tools.files.ripgrep import VCS_DIRECTORIES, run_rg

MAX_RESULTS = 100
TRUNCATION_NOTE = "(Results are truncated. Consider using a more specific path or pattern.)"
_GLOB_CHARS = frozenset("*?[{")


class GlobInput(PathInput):
    pattern: str = Field(description="The glob pattern to match files against")
    path: str | None = Field(
        default=None,
        description="The directory to search in. If not specified, the current working directory will be used. "
        'IMPORTANT: Omit this field to use the default directory. DO NOT enter "undefined" or "null" - simply omit '
        "it for the default behavior. Must be a valid directory path if provided.",
    )


class GlobResult(BaseModel):
    model_config = ConfigDict(frozen=True)
    filenames: list[str]
    """Absolute paths, newest first, at most ``MAX_RESULTS``."""
    num_files: int
    """All matches, before the cap."""
    truncated: bool
    duration_ms: int


def split_pattern(pattern: str, search_dir: Path) -> tuple[Path, str]:
    """``(directory to search, relative pattern)``; an absolute pattern brings its own directory."""
    pattern = os.path.expanduser(pattern.strip())
    if not os.path.isabs(pattern):
        return search_dir, pattern.removeprefix("./")
    parts = Path(pattern).parts
    static = 0
    while static < len(parts) - 1 and not _GLOB_CHARS.intersection(parts[static]):
        static += 1
    rest = "/".join(parts[static:])
    # A leading "/" anchors the glob at the root, as the absolute pattern meant.
    return Path(*parts[:static]), rest if "/" in rest else "/" + rest


def build_rg_args(pattern: str) -> list[str]:
    """The ripgrep command line (after ``rg``) listing files matching ``pattern`` under the cwd."""
    args = ["--files", "--hidden", "--no-ignore", "--glob", pattern]
    for directory in VCS_DIRECTORIES:
        args += ["--glob", f"!{directory}"]
    return args


class GlobTool(Tool[GlobInput]):
    """Find files by glob pattern."""

    name = "Glob"
    input_model = GlobInput
    repeats_its_content = True  # the structured output is its text again: kept once
    search_hint = "find files by name pattern"
    max_result_size_chars = 100_000

    def prompt(self) -> str:
        return _PROMPT

    def is_read_only(self, input: GlobInput) -> bool:
        return True

    def is_concurrency_safe(self, input: GlobInput) -> bool:
        return True

    def permission_rule_content(self, input: GlobInput) -> str | None:
        return rule_path(input.path or ".", input._resolved_path)

    async def validate_input(self, input: GlobInput, ctx: ToolUseContext) -> ValidationResult:
        if not input.pattern.strip():
            return ValidationResult.failed("The glob pattern is empty.")
        try:
            root, _ = split_pattern(input.pattern, expand_path(input.path or ".", ctx.cwd))
        except ToolError as exc:
            return ValidationResult.failed(str(exc))
        input._resolved_path = os.fspath(root)
        if not root.exists():
            return ValidationResult.failed(f"Directory does not exist: {root}. Current working directory: {ctx.cwd}.")
        if not root.is_dir():
            return ValidationResult.failed(f"Path is not a directory: {root}")
        return ValidationResult.passed()

    async def call(self, input: GlobInput, ctx: ToolUseContext, on_progress: ProgressCallback) -> ToolResult:
        started = time.monotonic()
        root, pattern = split_pattern(input.pattern, expand_path(input.path or ".", ctx.cwd))
        found = RecencyCollector(root)  # stats each path while rg is still walking
        args = build_rg_args(pattern)
        for glob in denied_read_globs(ctx, root):
            args += ["--glob", glob]  # last, so they win over the pattern
        output = await run_rg(args, cwd=root, abort_signal=ctx.abort_signal, on_lines=found.add)
        if output.returncode == 2 and not output.stdout:
            raise ToolError(f"ripgrep failed: {output.stderr.strip()[:2000]}")
        return ToolResult(
            data=GlobResult(
                filenames=found.newest(MAX_RESULTS),
                num_files=found.count,
                truncated=found.count > MAX_RESULTS or output.truncated,
                duration_ms=int((time.monotonic() - started) * 1000),
            )
        )

    def map_result_to_block(self, data: Any, tool_use_id: str) -> str | list[ContentBlock]:
        if not isinstance(data, GlobResult):
            return super().map_result_to_block(data, tool_use_id)
        if not data.filenames:
            return "No files found"
        text = "\n".join(data.filenames)
        return f"{text}\n{TRUNCATION_NOTE}" if data.truncated else text


_PROMPT = """\
- Fast file pattern matching tool that works with any codebase size
- Supports glob patterns like "**/*.js" or "src/**/*.ts"
- Returns matching file paths sorted by modification time (newest first), at most 100
- Hidden and git-ignored files are included; .git and other VCS directories are not
- Use this tool when you need to find files by name patterns
- You can call multiple tools in a single response. It is always better to speculatively perform multiple searches in parallel if they are potentially useful."""
