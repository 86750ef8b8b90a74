"""Subagents (seed 003 §3.7, SPEC §7): the ``Agent`` tool, built-in and custom agent
types, tool filtering, foreground / background runs and their sidechain transcripts."""

from nb_agent.agents.definition import BUILT_IN_AGENTS, EXPLORE, GENERAL_PURPOSE, PLAN, AgentDefinition
from nb_agent.agents.host import SubagentHost, attach_subagents
from nb_agent.agents.loader import AgentCatalog, load_agent_catalog, parse_agent_file, parse_agent_text
from nb_agent.agents.runner import SubagentOutcome, SubagentRun
from nb_agent.agents.tool import AgentTool

__all__ = [
    "BUILT_IN_AGENTS",
    "EXPLORE",
    "GENERAL_PURPOSE",
    "PLAN",
    "AgentCatalog",
    "AgentDefinition",
    "AgentTool",
    "SubagentHost",
    "SubagentOutcome",
    "SubagentRun",
    "attach_subagents",
    "load_agent_catalog",
    "parse_agent_file",
    "parse_agent_text",
]
