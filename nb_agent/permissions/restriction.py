"""A skill's or command's ``allowed-tools`` while it runs: calls outside the list ask.

In nb_agent the list only narrows: a call it names goes through the permission rules as
usual (``allowed-tools: Bash`` does not let a command run unasked that would ask), and a
call it does not name asks even where it would otherwise run. Deny rules, protected
files and the rest of the chain are untouched. Tools that act on nothing (the todo list,
loading a skill, searching the tool list) are never held up.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nb_agent.errors import ConfigurationError
from nb_agent.permissions.rules import PermissionRule, first_matching_rule, parse_rule
from nb_agent.permissions.types import PermissionAsk

if TYPE_CHECKING:
    from nb_agent.tools.base import Tool, ToolUseContext

__all__ = ["ToolRestriction", "restriction_ask"]

NEVER_HELD = frozenset({"TodoWrite", "Skill", "ToolSearch"})


@dataclass(frozen=True, kw_only=True)
class ToolRestriction:
    """The ``allowed-tools`` of the skill or command now running."""

    owner: str
    """``/name``: how the ask names it."""
    specs: tuple[str, ...]
    rules: tuple[PermissionRule, ...]

    @classmethod
    def of(cls, owner: str, specs: tuple[str, ...], *, root: Path | None = None) -> ToolRestriction:
        """The restriction of ``specs`` (tool specs as in rules: ``Read``, ``Bash(git diff:*)``).
        A spec that is not a rule narrows to nothing: the calls it meant ask."""
        rules = []
        for spec in specs:
            try:
                rules.append(parse_rule(spec, behavior="allow", source="session", root=root))
            except ConfigurationError:
                continue
        return cls(owner=owner, specs=specs, rules=tuple(rules))

    def ask_for(self, tool: Tool[Any], input: Any, ctx: ToolUseContext) -> PermissionAsk | None:
        """An ask when the call is outside the list, else None."""
        if tool.name in NEVER_HELD:
            return None
        if first_matching_rule(self.rules, tool, input, ctx.session.cwd, behavior="allow") is not None:
            return None
        listed = ", ".join(self.specs) or "nothing"
        return PermissionAsk(message=f"{self.owner} lists only {listed} in allowed-tools; {tool.name} needs your approval while it runs.")


def restriction_ask(tool: Tool[Any], input: Any, ctx: ToolUseContext) -> PermissionAsk | None:
    """The ask the active skill's ``allowed-tools`` adds to an allowed call, if any."""
    restriction = ctx.services.active_skill
    return restriction.ask_for(tool, input, ctx) if restriction is not None else None
