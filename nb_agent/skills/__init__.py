"""Skills and custom commands (Claude Code's ``.claude/skills`` and ``.claude/commands``).

:func:`load_skill_catalog` finds them, :class:`SkillTool` lets the model load one,
:func:`skill_listing` is what the model is told is available.
"""

from nb_agent.skills.definition import SkillDefinition, SkillKind, SkillSource, parse_skill_text
from nb_agent.skills.listing import SKILL_LISTING_KIND, listing_budget, skill_listing
from nb_agent.skills.loader import COMMANDS_DIR, SKILLS_DIR, SkillCatalog, load_skill_catalog
from nb_agent.skills.tool import SKILL_TOOL_NAME, SkillTool, listing_for_tools, loaded_skill_text

__all__ = [
    "COMMANDS_DIR",
    "SKILLS_DIR",
    "SKILL_LISTING_KIND",
    "SKILL_TOOL_NAME",
    "SkillCatalog",
    "SkillDefinition",
    "SkillKind",
    "SkillSource",
    "SkillTool",
    "listing_budget",
    "listing_for_tools",
    "load_skill_catalog",
    "loaded_skill_text",
    "parse_skill_text",
    "skill_listing",
]
