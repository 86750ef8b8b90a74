"""Whether Read would let a read-only call read what it will read (SPEC §8, issue 11).

The read-only fast path (a Bash command the classifier calls read-only, Grep, Glob) may
never read what the Read tool would have to ask for or is denied. A tool describes its
reads as a :class:`~nb_agent.shell.read_plan.ReadPlan`; :func:`check_read_plan` judges
every path the way Read is judged: a ``Read`` deny rule denies, an ask rule asks, a path
outside the working directories asks unless a ``Read`` allow rule covers it, and a
directory whose whole tree is read asks when a deny or ask rule could match something
inside it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from nb_agent.permissions.paths import PathPattern, candidate_paths, glob_matches, relative_to
from nb_agent.shell.read_plan import PathRead, ReadPlan

__all__ = ["ReadVerdict", "check_read_plan", "rule_may_match_below"]


@dataclass(frozen=True, kw_only=True)
class ReadVerdict:
    """The outcome of :func:`check_read_plan`: ``allowed``, or a message saying why not."""

    behavior: Literal["allow", "ask", "deny"]
    message: str = ""
    unknown: bool = False
    """It asks because the reads cannot be listed before the command runs."""
    outside: tuple[PathRead, ...] = ()
    """The reads outside the working directories that made it ask (a ``Read`` allow
    rule for them would answer it: the rule an "Always allow" answer adds)."""


PathRuleMatcher = Callable[[Path, str], str | None]
"""``(path, behavior) -> rule text`` of the first Read rule of that behavior matching."""


def check_read_plan(
    plan: ReadPlan,
    *,
    tool_name: str,
    working_directories: Sequence[Path],
    matching_rule: PathRuleMatcher,
    tree_rules: Sequence[tuple[str, str, Path, PathPattern]],
) -> ReadVerdict:
    """Judge every read of ``plan`` as Read would be judged.

    ``tree_rules`` are the Read deny and ask rules as ``(behavior, text, anchor, glob)``
    for the tree check.
    """
    if plan.unknown is not None:
        return ReadVerdict(behavior="ask", message=f"{tool_name} is not known to be read-only here: {plan.unknown}.", unknown=True)
    asks: list[str] = []
    outside: list[PathRead] = []
    # Each working directory in both spellings, resolved once (realpath is not free).
    roots = [spelling for directory in working_directories for spelling in candidate_paths(directory)]
    for read in plan.reads:
        if rule := matching_rule(read.path, "deny"):
            return ReadVerdict(
                behavior="deny",
                message=f"{tool_name} would read {_shown(read.path)}, which the rule {rule} denies.",
            )
        if rule := matching_rule(read.path, "ask"):
            asks.append(f"{_shown(read.path)} (the rule {rule} asks)")
            continue
        inside = all(any(_under(spelling, root) for root in roots) for spelling in candidate_paths(read.path))
        # A tree read is covered by a rule covering what lies deep inside (`Read(//etc/**)`).
        allowed_path = read.path / "_" / "_" / "_" if read.kind == "tree" else read.path
        if not inside and not matching_rule(allowed_path, "allow"):
            asks.append(f"{_shown(read.path)} (outside the working directories)")
            outside.append(read)
            continue
        if read.kind == "tree":
            for behavior, text, anchor, pattern in tree_rules:
                if rule_may_match_below(read.path, anchor=anchor, pattern=pattern):
                    if behavior == "deny":
                        return ReadVerdict(
                            behavior="ask",
                            message=f"{tool_name} would read everything under {_shown(read.path)}, "
                            f"where the rule {text} denies some files.",
                        )
                    asks.append(f"{_shown(read.path)} (the rule {text} asks for some files inside)")
                    break
    if asks:
        message = f"{tool_name} would read " + "; ".join(asks[:3]) + "."
        return ReadVerdict(behavior="ask", message=message, outside=tuple(outside) if len(outside) == len(asks) else ())
    return ReadVerdict(behavior="allow")


def _under(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def _shown(path: Path) -> str:
    return str(candidate_paths(path)[0])


def rule_may_match_below(directory: Path, *, anchor: Path, pattern: PathPattern) -> bool:
    """Could a Read rule (its anchor directory and gitignore glob) match a path inside
    ``directory``? Errs on yes."""
    for spelling in candidate_paths(directory):
        for root in candidate_paths(anchor):
            below = relative_to(spelling, root)
            if below is not None:
                if not pattern.anchored or glob_matches(pattern, below) or _prefix_may_match(pattern.glob, below):
                    return True
            elif relative_to(root, spelling) is not None:
                return True  # the rule's directory lies inside the tree
    return False


def _prefix_may_match(glob: str, relative: str) -> bool:
    """Can an anchored glob match something below ``relative``? (Its leading segments
    are compared with the directory's; a wildcard segment or ``**`` may match.)"""
    parts = [part for part in glob.strip("/").split("/") if part]
    directory = [part for part in relative.split("/") if part]
    for index, segment in enumerate(directory):
        if index >= len(parts):
            return False  # the glob names something above; covered by glob_matches
        pattern = parts[index]
        if pattern == "**":
            return True
        if any(char in pattern for char in "*?[") or pattern == segment:
            continue
        return False
    return True


