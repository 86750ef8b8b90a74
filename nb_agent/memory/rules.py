"""``.claude/rules/**/*.md``: instructions split into files, some about certain paths only.

A rule file without ``paths`` in its frontmatter is read like a CLAUDE.md. One with
``paths`` (a glob or a list of globs, relative to the folder that holds ``.claude``;
``{a,b}`` alternatives allowed) is read when the agent first reads a file it matches.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from nb_agent.frontmatter import FrontmatterError, split_frontmatter
from nb_agent.permissions.paths import relative_to
from nb_agent.permissions.wildcards import glob_pattern

__all__ = ["MAX_RULE_FILES", "RuleText", "expand_braces", "rule_files", "rule_matches", "rule_text"]

RULES_DIR = Path(".claude") / "rules"
MAX_RULE_FILES = 200
"""Per ``rules`` folder; a folder planting thousands of files does not slow every session."""
_MAX_BRACE_EXPANSIONS = 64


@dataclass(frozen=True, kw_only=True)
class RuleText:
    body: str
    paths: tuple[str, ...] = ()


def rule_files(directory: Path) -> tuple[list[Path], bool]:
    """The ``*.md`` files under a ``rules`` folder (sorted, subfolders included, links to
    folders not followed) and whether there were more than :data:`MAX_RULE_FILES`."""
    found: list[Path] = []
    for root, _dirs, files in os.walk(directory):  # os.walk does not follow directory links
        found += [Path(root) / name for name in files if name.endswith(".md")]
        if len(found) > MAX_RULE_FILES:
            break
    found.sort(key=lambda p: p.relative_to(directory).as_posix())
    return found[:MAX_RULE_FILES], len(found) > MAX_RULE_FILES


def rule_text(text: str) -> RuleText:
    """A rule file's body and its ``paths``; raises ``FrontmatterError`` (a
    ``ConfigurationError``) when the frontmatter or ``paths`` is unusable."""
    data, body = split_frontmatter(text)
    raw = (data or {}).get("paths")
    if raw is None:
        return RuleText(body=body)
    items = raw.split(",") if isinstance(raw, str) else raw
    if not isinstance(items, list) or not all(isinstance(item, str) for item in items):
        raise FrontmatterError("paths must be a glob or a list of globs")
    globs = tuple(g for item in items for g in expand_braces(item.strip()) if g)
    return RuleText(body=body, paths=globs)


def expand_braces(glob: str) -> list[str]:
    """``src/**/*.{ts,tsx}`` → ``src/**/*.ts``, ``src/**/*.tsx`` (nested groups too),
    at most a few dozen alternatives."""
    start = glob.find("{")
    if start == -1:
        return [glob]
    depth = 0
    for end in range(start, len(glob)):
        depth += {"{": 1, "}": -1}.get(glob[end], 0)
        if depth == 0:
            break
    else:
        return [glob]  # unbalanced: a literal brace
    options, depth, current = [], 0, ""
    for char in glob[start + 1 : end]:
        if char == "," and depth == 0:
            options.append(current)
            current = ""
            continue
        depth += {"{": 1, "}": -1}.get(char, 0)
        current += char
    options.append(current)
    expanded: list[str] = []
    for option in options:
        for rest in expand_braces(glob[:start] + option + glob[end + 1 :]):
            if len(expanded) >= _MAX_BRACE_EXPANSIONS:
                return expanded
            expanded.append(rest)
    return expanded


def rule_matches(globs: tuple[str, ...], path: Path, *, base: Path) -> bool:
    """Does one of the rule's globs match ``path`` (relative to ``base``, the folder
    holding ``.claude``)? A glob without ``/`` matches the name at any depth."""
    rel = relative_to(path, base)
    if not rel:
        return False
    for glob in globs:
        pattern = glob.removeprefix("./")
        if "/" not in pattern.rstrip("/"):
            pattern = f"**/{pattern}"
        if glob_pattern(pattern).fullmatch(rel):
            return True
    return False
