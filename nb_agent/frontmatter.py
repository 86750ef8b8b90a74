"""YAML frontmatter of Claude Code's Markdown files (agents, skills, commands, rules).

A file may start with a ``---`` line, a YAML mapping and a closing ``---`` line; the rest
is the Markdown body. Agents require it; skills, commands and rules may leave it out.
"""

from __future__ import annotations

from typing import Any

from nb_agent.errors import ConfigurationError

__all__ = ["FrontmatterError", "split_frontmatter", "split_specs"]


class FrontmatterError(ConfigurationError):
    """The frontmatter is there but unusable (no closing line, invalid YAML, not a mapping)."""


def split_frontmatter(text: str) -> tuple[dict[str, Any] | None, str]:
    """``(mapping, body)``; the mapping is None when the file has no frontmatter. The
    body is stripped. Raises :class:`FrontmatterError` when frontmatter is malformed."""
    lines = text.lstrip("\ufeff").splitlines()
    if not lines or lines[0].strip() != "---":
        return None, "\n".join(lines).strip()
    end = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), None)
    if end is None:
        raise FrontmatterError("the frontmatter has no closing '---' line")
    import yaml  # here, not at import: the engine imports this module, and many folders have no frontmatter

    try:
        data = yaml.safe_load("\n".join(lines[1:end]))
    except yaml.YAMLError as exc:
        raise FrontmatterError(f"invalid YAML in the frontmatter: {' '.join(str(exc).split())}") from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise FrontmatterError("the frontmatter must be a YAML mapping (name: ..., description: ...)")
    return data, "\n".join(lines[end + 1 :]).strip()


def split_specs(value: Any, *, field_name: str, blanks: bool = False) -> tuple[str, ...]:
    """A list field of tool specs: a YAML list, or a string separated by commas (and, with
    ``blanks``, by blanks too: ``allowed-tools: Read Grep Bash(git diff *)``); separators
    inside parentheses are kept. Raises :class:`FrontmatterError`."""
    if value is None:
        return ()
    if isinstance(value, list):
        items = value
    elif isinstance(value, str):
        items, depth, current = [], 0, ""
        for char in value:
            depth += (char == "(") - (char == ")")
            if depth == 0 and (char == "," or (blanks and char.isspace())):
                items.append(current)
                current = ""
            else:
                current += char
        items.append(current)
    else:
        raise FrontmatterError(f"{field_name} must be a comma-separated string or a list, not {type(value).__name__}")
    specs = []
    for item in items:
        if not isinstance(item, str):
            raise FrontmatterError(f"{field_name} entries must be strings, got {item!r}")
        if item.strip():
            specs.append(item.strip())
    return tuple(specs)
