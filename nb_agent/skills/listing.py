"""The list of skills the model sees: names and descriptions, within a budget.

It goes to the model as a ``<system-reminder>`` with the project instructions, so it is
part of the cached prefix and costs the same on every request: its size is bounded by
1 % of the context window (4 characters a token), or by Claude Code's
``SLASH_COMMAND_TOOL_CHAR_BUDGET`` (characters). Past the budget, the last skills keep
only their names, then are only counted.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from nb_agent.skills.definition import MAX_DESCRIPTION_CHARS, SkillDefinition

__all__ = ["BUDGET_ENV", "SKILL_LISTING_KIND", "listing_budget", "skill_listing"]

BUDGET_ENV = "SLASH_COMMAND_TOOL_CHAR_BUDGET"
SKILL_LISTING_KIND = "skill_listing"
CONTEXT_SHARE = 0.01
CHARS_PER_TOKEN = 4
_HEADER = "The following skills are available for use with the Skill tool:\n"
_MORE = "(and {count} more skill{s} not listed for lack of room: load one by its exact name when the user names it)"


def listing_budget(context_window: int) -> int:
    """Characters the list may take: ``$SLASH_COMMAND_TOOL_CHAR_BUDGET`` or 1 % of the window."""
    raw = os.environ.get(BUDGET_ENV, "").strip()
    if raw.isdigit():
        return int(raw)
    return int(context_window * CONTEXT_SHARE * CHARS_PER_TOKEN)


def _entry(skill: SkillDefinition, *, with_description: bool) -> str:
    if not with_description:
        return f"- {skill.name}"
    description = " ".join(skill.description.split())
    if len(description) > MAX_DESCRIPTION_CHARS:
        description = description[: MAX_DESCRIPTION_CHARS - 1] + "…"
    hint = f" (arguments: {skill.argument_hint})" if skill.argument_hint else ""
    return f"- {skill.name}: {description}{hint}"


def skill_listing(skills: Sequence[SkillDefinition], *, budget: int) -> str:
    """The text of the list (without the reminder tags); empty when there are no skills."""
    if not skills:
        return ""
    lines = [_HEADER]
    used = len(_HEADER)
    room = budget - len(_MORE.format(count=len(skills), s="s"))  # the note must fit too
    names_only = False
    for index, skill in enumerate(skills):
        line = _entry(skill, with_description=not names_only)
        if not names_only and used + len(line) + 1 > room:
            names_only = True
            line = _entry(skill, with_description=False)
        if used + len(line) + 1 > room:
            rest = len(skills) - index
            lines.append(_MORE.format(count=rest, s="s" if rest != 1 else ""))
            break
        lines.append(line)
        used += len(line) + 1
    return "\n".join(lines)
