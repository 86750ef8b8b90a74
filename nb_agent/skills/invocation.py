"""The user invoking a skill or custom command: ``/name args`` as a prompt.

``%%agent /tidy-report the charts`` (or ``submit_message("/tidy-report the charts")``)
sends the skill's body with the arguments filled in instead of the text; the skill's
``model`` is the run's model, and its ``allowed-tools`` narrow the run's tools
(:mod:`nb_agent.permissions.restriction`). Text that merely starts with a path
(``/data/sales.csv: what is in it?``) is not an invocation.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from nb_agent.permissions.restriction import ToolRestriction
from nb_agent.skills.definition import SkillDefinition
from nb_agent.skills.loader import SkillCatalog
from nb_agent.skills.tool import loaded_skill_text

__all__ = ["UserInvocation", "parse_invocation", "restriction_for", "unknown_invocation", "user_invocation"]

_INVOCATION = re.compile(r"^/([A-Za-z0-9][\w.:-]*)(?:\s+(.*))?$", re.DOTALL)


@dataclass(frozen=True, kw_only=True)
class UserInvocation:
    """What ``/name args`` becomes."""

    definition: SkillDefinition
    args: str
    prompt: str
    """What is sent in place of ``/name args``."""
    model: str | None
    restriction: ToolRestriction | None


def parse_invocation(text: str) -> tuple[str, str] | None:
    """``(name, args)`` of ``/name args``, or None."""
    match = _INVOCATION.match(text.strip())
    return (match.group(1), (match.group(2) or "").strip()) if match else None


def restriction_for(skill: SkillDefinition, *, root: Path | None = None) -> ToolRestriction | None:
    """The skill's ``allowed-tools`` as a restriction (None: it lists none)."""
    return None if skill.allowed_tools is None else ToolRestriction.of(f"/{skill.name}", skill.allowed_tools, root=root)


def user_invocation(catalog: SkillCatalog, text: str, *, session_id: str = "", root: Path | None = None) -> UserInvocation | None:
    """The invocation ``text`` is, when it names a skill or command the user may invoke."""
    parsed = parse_invocation(text)
    if parsed is None:
        return None
    skill = catalog.find(parsed[0])
    if skill is None or not skill.user_invocable:
        return None
    args = parsed[1]
    prompt = loaded_skill_text(skill, args, session_id=session_id) if skill.kind == "skill" else skill.render(args, session_id=session_id)
    return UserInvocation(definition=skill, args=args, prompt=prompt, model=skill.model, restriction=restriction_for(skill, root=root))


def unknown_invocation(catalog: SkillCatalog | None, name: str) -> str | None:
    """Why ``/name`` cannot be invoked by the user (None: it can)."""
    skill = catalog.find(name) if catalog is not None else None
    if skill is not None and skill.user_invocable:
        return None
    names = ", ".join(f"/{d.name}" for d in (catalog.user_invocable if catalog is not None else [])) or "none"
    if skill is not None:
        return f"/{skill.name} is for the model only (user-invocable: false). Commands you can run: {names}"
    return f"No skill or command /{name}. Commands you can run: {names} (%agent skills lists them)"
