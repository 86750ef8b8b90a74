"""Skills and custom commands (Claude Code's ``.claude/skills`` and ``.claude/commands``).

:func:`nb_agent.skills.loader.load_skill_catalog` finds them,
:class:`nb_agent.skills.tool.SkillTool` lets the model load one,
:mod:`nb_agent.skills.invocation` runs one the user names (``/NAME ARGS``). (Like
:mod:`nb_agent.memory`, this ``__init__`` imports nothing, for the same reason.)
"""
