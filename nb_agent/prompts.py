"""The system prompt (SPEC §6): static sections, a cache boundary, then dynamic sections."""

from __future__ import annotations

import os
import platform
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

DEFAULT_SYSTEM_PROMPT = """\
You are nb_agent, an AI assistant working inside the user's Jupyter kernel. You help with \
data analysis, coding and research by calling tools. Be concise: the user reads your answers \
in a notebook cell. Use Markdown for structure, and fenced code blocks for code.

When you change files, read them first and make targeted edits. When a tool call is denied, \
do not retry the same call; adjust your approach or ask the user. Report what you did and \
what you found, briefly, when you finish."""


@dataclass(frozen=True, kw_only=True)
class SystemPromptParts:
    """Priority: override > agent prompt > custom > default; ``append`` always goes last."""

    override: str | None = None
    agent_prompt: str | None = None
    custom: str | None = None
    append: str | None = None
    dynamic_sections: list[str] = field(default_factory=list)
    """Per-session text that must not be cached (env, MCP instructions)."""


def environment_section(*, cwd: Path, model: str) -> str:
    return (
        "<env>\n"
        f"Working directory: {cwd}\n"
        f"Platform: {platform.system().lower()}\n"
        f"Shell: {os.environ.get('SHELL', 'bash')}\n"
        f"Model: {model}\n"
        "</env>"
    )


def build_system_prompt(parts: SystemPromptParts, *, cwd: Path, model: str) -> list[dict[str, Any]]:
    """System blocks: the static prompt (cached up to here) then the dynamic sections."""
    static = parts.override or parts.agent_prompt or parts.custom or DEFAULT_SYSTEM_PROMPT
    if parts.append and not parts.override:
        static = f"{static}\n\n{parts.append}"
    blocks: list[dict[str, Any]] = [{"type": "text", "text": static, "cache_control": {"type": "ephemeral"}}]
    if parts.override:
        return blocks
    dynamic = [environment_section(cwd=cwd, model=model), *parts.dynamic_sections]
    blocks.append({"type": "text", "text": "\n\n".join(s for s in dynamic if s)})
    return blocks


def today() -> str:
    return date.today().isoformat()
