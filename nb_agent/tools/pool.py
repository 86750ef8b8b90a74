"""Tool pool assembly (SPEC §7): built-ins first, then MCP tools, each part sorted by name.

Built-ins form a stable prefix of the request's ``tools`` so the prompt cache survives MCP
servers coming and going (a flat sort would interleave MCP tools among the built-ins). On a
name clash the built-in wins: an MCP server cannot shadow ``Bash``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from nb_agent.tools.base import Tool

DenyRuleMatcher = Callable[[Tool[Any]], bool]
"""``(tool) -> True`` when a blanket deny rule removes the tool from the pool."""

_RULE = re.compile(r"^\s*([^\s(]+)\s*(?:\((.*)\))?\s*$", re.DOTALL)


def assemble_tool_pool(
    builtins: Iterable[Tool[Any]],
    mcp_tools: Iterable[Tool[Any]],
    deny_rule_matcher: DenyRuleMatcher | None = None,
) -> list[Tool[Any]]:
    """Enabled built-ins minus denied, sorted; then MCP tools minus denied, sorted; unique names."""
    denied = deny_rule_matcher or (lambda _tool: False)
    first = sorted((t for t in builtins if t.is_enabled() and not denied(t)), key=lambda t: t.name)
    second = sorted((t for t in mcp_tools if t.is_enabled() and not denied(t)), key=lambda t: t.name)
    pool: list[Tool[Any]] = []
    seen: set[str] = set()
    for tool in (*first, *second):
        if tool.name not in seen:
            seen.add(tool.name)
            pool.append(tool)
    return pool


def blanket_denied(tool_name: str, deny_rule_strings: Iterable[str]) -> bool:
    """Does a deny rule remove the whole tool (not just some inputs)?

    Blanket forms: ``Tool``, ``Tool(*)``, ``mcp__server`` (every tool of the server),
    ``mcp__server__*`` and ``mcp__server__tool``. A rule with content such as
    ``Bash(rm:*)`` only denies some calls, so the tool stays in the pool.
    """
    return any(_rule_blanket_covers(rule, tool_name) for rule in deny_rule_strings)


def blanket_deny_matcher(deny_rule_strings: Sequence[str]) -> DenyRuleMatcher:
    """A ``deny_rule_matcher`` for :func:`assemble_tool_pool` from rule strings."""
    rules = tuple(deny_rule_strings)
    return lambda tool: blanket_denied(tool.name, rules) or any(blanket_denied(a, rules) for a in tool.aliases)


def _rule_blanket_covers(rule: str, tool_name: str) -> bool:
    match = _RULE.match(rule)
    if match is None:
        return False
    name, content = match.group(1), match.group(2)
    if content is not None and content.strip() not in ("", "*"):
        return False
    if name == tool_name:
        return True
    if not name.startswith("mcp__"):
        return False
    if name.endswith("__*"):
        return tool_name.startswith(name[:-1])
    # ``mcp__server`` (no tool part) covers every tool of that server.
    server_part = name[len("mcp__") :]
    return "__" not in server_part and tool_name.startswith(name + "__")
