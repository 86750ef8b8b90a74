"""The ``Skill`` tool: the model loads a skill's instructions when a task calls for it.

Input as Claude Code's: ``skill`` (the name) and optional ``args``. The result is the
skill's body with the arguments filled in, the folder it lives in, and the other files of
that folder (the model reads those it needs with Read). Loading a skill changes nothing by
itself: the tool is read-only, and what the skill then asks the model to do goes through
the usual permission chain; a skill's ``allowed-tools`` then narrow the rest of the run
(:mod:`nb_agent.permissions.restriction`).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from nb_agent.errors import ToolError
from nb_agent.permissions.restriction import ToolRestriction
from nb_agent.skills.definition import SkillDefinition
from nb_agent.skills.listing import listing_budget, skill_listing
from nb_agent.skills.loader import SkillCatalog
from nb_agent.tools.base import InterruptBehavior, ProgressCallback, Tool, ToolResult, ToolUseContext, find_tool

__all__ = ["SKILL_TOOL_NAME", "SkillInput", "SkillTool", "listing_for_tools", "loaded_skill_text", "skill_files"]

SKILL_TOOL_NAME = "Skill"
MAX_LISTED_FILES = 50


class SkillInput(BaseModel):
    skill: str = Field(description='The skill name, e.g. "tidy-notebook" (no leading slash)')
    args: str | None = Field(default=None, description="Optional arguments for the skill")


_PROMPT = """\
Load a skill: instructions for a specific kind of task, written by the user or their team.

The skills available are listed in a system reminder ("The following skills are available \
for use with the Skill tool"). When a task matches a skill's description, call this tool \
with the skill's name first, then follow the instructions it returns. When the user names \
a skill ("use the tidy-notebook skill", "/tidy-notebook"), load it.

- Pass arguments the user gave in args.
- Do not load a skill that is already loaded in this conversation: follow it.
- A skill's folder may hold more files (templates, references, scripts); the result lists \
them: read the ones a step needs."""


def listing_for_tools(tools: Sequence[Tool[Any]], *, context_window: int) -> str:
    """The skill list for a request offering ``tools`` (empty without the Skill tool)."""
    tool = find_tool(tools, SKILL_TOOL_NAME)
    if not isinstance(tool, SkillTool):
        return ""
    return skill_listing(tool.catalog.model_invocable, budget=listing_budget(context_window))


def skill_files(skill: SkillDefinition) -> list[Path]:
    """The other files of a skill's folder (sorted, links to folders not followed, bounded)."""
    directory = skill.directory
    if directory is None:
        return []
    files: list[Path] = []
    for folder, dirs, names in os.walk(directory):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        files += [Path(folder) / n for n in sorted(names) if not n.startswith(".") and Path(folder) / n != skill.path]
        if len(files) > MAX_LISTED_FILES:
            break
    return files[: MAX_LISTED_FILES + 1]


def loaded_skill_text(skill: SkillDefinition, args: str, *, session_id: str) -> str:
    """What the model gets when a skill is loaded."""
    parts = []
    if skill.directory is not None:
        parts.append(f"Base directory for this skill: {skill.directory}")
    parts.append(skill.render(args, session_id=session_id))
    files = skill_files(skill)
    if files:
        shown = [f"- {f}" for f in files[:MAX_LISTED_FILES]]
        if len(files) > MAX_LISTED_FILES:
            shown.append("- … (more files; list the folder to see them)")
        parts.append("Files in this skill's folder (read them with Read when a step needs them):\n" + "\n".join(shown))
    return "\n\n".join(parts)


class SkillTool(Tool[SkillInput]):
    name = SKILL_TOOL_NAME
    input_model = SkillInput
    search_hint = "load a skill instructions workflow slash command"
    max_result_size_chars = float("inf")  # a skill is read whole, never persisted to a file

    def __init__(self, catalog: SkillCatalog) -> None:
        self.catalog = catalog

    def prompt(self) -> str:
        return _PROMPT

    def is_read_only(self, input: SkillInput) -> bool:
        return True

    def interrupt_behavior(self) -> InterruptBehavior:
        return "cancel"

    def _skill(self, name: str) -> SkillDefinition:
        skill = self.catalog.find(name.strip())
        if skill is None or not skill.model_invocable:
            names = ", ".join(d.name for d in self.catalog.model_invocable) or "none"
            reason = "can only be invoked by the user" if skill is not None else "not found"
            raise ToolError(f"Skill '{name}' {reason}. Available skills: {names}")
        return skill

    async def call(self, input: SkillInput, ctx: ToolUseContext, on_progress: ProgressCallback) -> ToolResult:
        skill = self._skill(input.skill)
        text = loaded_skill_text(skill, input.args or "", session_id=ctx.session_id)
        if skill.allowed_tools is None:
            return ToolResult(data=text)
        restriction = ToolRestriction.of(f"/{skill.name}", skill.allowed_tools, root=ctx.session.cwd)
        # Not concurrency-safe, so this applies to the rest of the run: its allowed-tools narrow it.
        return ToolResult(data=text, context_modifier=lambda c: replace(c, services=replace(c.services, active_skill=restriction)))

    def map_result_to_block(self, data: Any, tool_use_id: str) -> str:
        return str(data)
