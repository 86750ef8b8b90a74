"""A skill or custom command: its frontmatter, its body, and the body with arguments filled in.

Claude Code's formats. A skill is a folder with a ``SKILL.md`` (and any files it refers
to); a custom command is one Markdown file. Both take the same frontmatter:

- ``name`` (a skill's; default the folder's name; a command is named by its file),
- ``description`` (what it does and when to use it; default the body's first line),
- ``argument-hint``, ``allowed-tools``, ``model``,
- ``disable-model-invocation`` (only the user may invoke it), ``user-invocable`` (false:
  only the model may, through the Skill tool).

In the body, ``$ARGUMENTS`` is the whole argument string, ``$ARGUMENTS[N]`` and ``$N``
the N-th argument (from 0, split as a shell would), ``${CLAUDE_SKILL_DIR}`` the skill's
folder and ``${CLAUDE_SESSION_ID}`` the session. Without ``$ARGUMENTS`` in the body, the
arguments follow it on a line ``ARGUMENTS: ...``.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from nb_agent.errors import ConfigurationError
from nb_agent.frontmatter import split_frontmatter, split_specs

__all__ = ["SKILL_NAME", "SkillDefinition", "SkillKind", "SkillSource", "parse_skill_text"]

SkillKind = Literal["skill", "command"]
SkillSource = Literal["user", "project"]

SKILL_NAME = re.compile(r"^[a-z0-9][a-z0-9_.:-]{0,63}$", re.IGNORECASE)
"""A name as ``%%agent /name`` and the Skill tool spell it."""
MAX_DESCRIPTION_CHARS = 1_536
"""A longer description is cut in the list the model sees (Claude Code's cap)."""

_POSITIONAL = re.compile(r"\$ARGUMENTS\[(\d+)\]|\$(\d+)")


@dataclass(frozen=True, kw_only=True)
class SkillDefinition:
    """One skill or custom command."""

    name: str
    description: str
    body: str
    kind: SkillKind
    source: SkillSource
    path: Path
    """The ``SKILL.md`` or the command's file."""
    argument_hint: str | None = None
    allowed_tools: tuple[str, ...] | None = None
    """Tool specs (``Read``, ``Bash(git diff:*)``); None: the frontmatter names none."""
    model: str | None = None
    model_invocable: bool = True
    user_invocable: bool = True

    @property
    def directory(self) -> Path | None:
        """A skill's folder (its supporting files are there); None for a command."""
        return self.path.parent if self.kind == "skill" else None

    def render(self, args: str = "", *, session_id: str = "") -> str:
        """The body with the arguments and variables filled in."""
        text = self.body.replace("${CLAUDE_SESSION_ID}", session_id)
        if self.directory is not None:
            text = text.replace("${CLAUDE_SKILL_DIR}", str(self.directory))
        uses_arguments = "$ARGUMENTS" in text or _POSITIONAL.search(text) is not None
        words = _split_arguments(args)

        def positional(match: re.Match[str]) -> str:
            index = int(match.group(1) or match.group(2))
            return words[index] if index < len(words) else match.group(0)

        text = _POSITIONAL.sub(positional, text).replace("$ARGUMENTS", args)
        if args.strip() and not uses_arguments:
            text = f"{text}\n\nARGUMENTS: {args}"
        return text


def _split_arguments(args: str) -> list[str]:
    try:
        return shlex.split(args)
    except ValueError:  # an unbalanced quote: split on blanks rather than fail
        return args.split()


def _flag(data: dict[str, Any], key: str, default: bool) -> bool:
    value = data.get(key, default)
    if not isinstance(value, bool):
        raise ConfigurationError(f"{key} must be true or false, not {value!r}")
    return value


def _optional_text(data: dict[str, Any], key: str) -> str | None:
    value = data.get(key)
    if value is None:
        return None
    if not isinstance(value, (str, int, float)) or not str(value).strip():
        raise ConfigurationError(f"{key} must be a non-empty string, not {value!r}")
    return str(value).strip()


def _argument_hint(value: Any) -> str | None:
    # ``argument-hint: [issue-number]`` is written in the YAML of many real files: a list.
    if isinstance(value, list):
        return " ".join(f"[{item}]" for item in value) or None
    return _optional_text({"argument-hint": value}, "argument-hint")


def parse_skill_text(text: str, *, name: str, kind: SkillKind, source: SkillSource, path: Path) -> SkillDefinition:
    """One skill's or command's file → its definition; ``name`` is the default name (the
    folder's or file's). Raises ``ConfigurationError`` saying what is wrong."""
    data, body = split_frontmatter(text)
    data = data or {}
    if kind == "skill" and data.get("name") is not None:
        name = str(data["name"]).strip()
    if not SKILL_NAME.match(name):
        raise ConfigurationError(f"name {name!r} is not usable: letters, digits, '-', '_', '.', ':' (at most 64)")
    if not body:
        raise ConfigurationError("the Markdown body is empty")
    description = _optional_text(data, "description") or body.splitlines()[0].lstrip("# ").strip()
    model = _optional_text(data, "model")
    allowed = split_specs(data["allowed-tools"], field_name="allowed-tools", blanks=True) if "allowed-tools" in data else None
    return SkillDefinition(
        name=name,
        description=description,
        body=body,
        kind=kind,
        source=source,
        path=path,
        argument_hint=_argument_hint(data.get("argument-hint")),
        allowed_tools=allowed,
        model=None if model == "inherit" else model,
        model_invocable=not _flag(data, "disable-model-invocation", False),
        user_invocable=_flag(data, "user-invocable", True),
    )
