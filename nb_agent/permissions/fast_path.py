"""The read-only fast path for Bash, held to the Read tool's scope (issue 11, families 4-7).

A Bash command runs without asking when every simple command in it is covered by an
allow rule or is read-only (:mod:`nb_agent.shell.read_only`), and the read-only
ones read nothing that Read would have to ask for or is denied
(:mod:`nb_agent.permissions.read_plan`), judged in the directory the command runs in.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from nb_agent.permissions.paths import PathPattern, anchor_directory, candidate_paths, parse_path_pattern, relative_to
from nb_agent.permissions.read_plan import ReadVerdict, check_read_plan, rule_may_match_below
from nb_agent.permissions.rules import PermissionRule, path_rule_matches
from nb_agent.permissions.shell_rules import shell_allow_coverage
from nb_agent.shell.command_parts import CommandPart, analyse_command
from nb_agent.shell.read_only import part_is_read_only
from nb_agent.shell.read_plan import ReadPlan
from nb_agent.shell.read_scope import bash_read_plan

__all__ = ["ReadScope", "ShellFastPath", "shell_fast_path"]

_READ_RULE_TOOLS = frozenset({"Read"})


@dataclass(frozen=True, kw_only=True)
class ReadScope:
    """What Read may read without asking: the rules, working directories and anchors."""

    rules: Sequence[PermissionRule]
    working_directories: Sequence[Path]
    cwd: Path
    """Where the call runs (relative paths resolve here)."""
    anchor: Path
    """The session's starting directory: rules without a root of their own anchor here."""
    home: Path
    git_allowed: bool = True
    """False in a folder the user has not trusted: git never runs without asking there."""

    def matching_rule(self, path: Path, behavior: str) -> str | None:
        """The first Read rule of ``behavior`` (an Edit allow rule counts too) matching."""
        for rule in self.rules:
            if rule.behavior != behavior or rule.content is None:
                continue
            if rule.tool_name in _READ_RULE_TOOLS or (behavior == "allow" and rule.tool_name == "Edit"):
                if path_rule_matches(rule, str(path), cwd=self.cwd, home=self.home, anchor=self.anchor):
                    return rule.text
        return None

    def tree_rules(self) -> list[tuple[str, str, Path, PathPattern]]:
        found = []
        for rule in self.rules:
            if rule.behavior in ("deny", "ask") and rule.tool_name in _READ_RULE_TOOLS and rule.content:
                pattern = parse_path_pattern(rule.content)
                root = anchor_directory(pattern, root=rule.root or self.anchor, home=self.home)
                found.append((rule.behavior, rule.text, root, pattern))
        return found

    def judge(self, plan: ReadPlan, *, tool_name: str) -> ReadVerdict:
        return check_read_plan(
            plan,
            tool_name=tool_name,
            working_directories=self.working_directories,
            matching_rule=self.matching_rule,
            tree_rules=self.tree_rules(),
        )

    def denied_globs(self, search_root: Path) -> list[str]:
        """ripgrep ``--glob`` exclusions for the Read deny and ask rules that may match
        below ``search_root`` (Grep and Glob must not return what Read may not read).

        An anchored rule at or below the search root keeps its place; any other shape is
        excluded by its last name at every depth (over-excluding is the safe side)."""
        globs: list[str] = []
        for _, _, root, pattern in self.tree_rules():
            if not rule_may_match_below(search_root, anchor=root, pattern=pattern):
                continue
            body = pattern.glob.strip("/")
            relative = _relative(root, search_root)
            if pattern.anchored and relative is not None and body:
                prefix = f"/{relative}/" if relative else "/"  # a leading slash anchors
                globs += [f"!{prefix}{body}", f"!{prefix}{body}/**"]
                continue
            names = [segment for segment in body.split("/") if segment and segment != "**"]
            last = names[-1] if names else "*"
            globs += [f"!**/{last}", f"!**/{last}/**"]
        return list(dict.fromkeys(globs))


def _relative(root: Path, search_root: Path) -> str | None:
    for spelling in candidate_paths(search_root):
        for anchor in candidate_paths(root):
            relative = relative_to(anchor, spelling)
            if relative is not None:
                return relative
    return None


@dataclass(frozen=True, kw_only=True)
class ShellFastPath:
    """The outcome for a Bash command: allowed (and why), or a verdict that is not allow."""

    verdict: ReadVerdict
    reason: str = ""


def shell_fast_path(
    command: str,
    *,
    allow_rules: Sequence[PermissionRule],
    read_only: bool,
    scope: ReadScope,
    tool_name: str,
) -> ShellFastPath | None:
    """Allow ``command`` when each simple command is covered by an allow rule or is
    read-only, and what the read-only ones read (covered by a rule or not) is within
    Read's scope; ``None`` when the fast path does not apply at all."""
    def plan_for(parts: Sequence[CommandPart] | None) -> ReadPlan:
        return bash_read_plan(analyse_command(command), cwd=scope.cwd, project_dir=scope.anchor,
                              home=scope.home, parts=parts, git_allowed=scope.git_allowed)

    coverage = shell_allow_coverage(allow_rules, command) if allow_rules else None
    if coverage is not None and coverage.used:
        uncovered = coverage.uncovered
        names = ", ".join(rule.text for rule in coverage.used)
        if all(part_is_read_only(part) for part in uncovered):
            # A rule names a program, not what it may read: every part that reads (allowed
            # by a rule or not) stays within Read's scope (`Bash(cat:*)` does not open ~/.ssh).
            readers = [part for part in coverage.analysis.parts if part_is_read_only(part)]
            verdict = scope.judge(plan_for(readers), tool_name=tool_name) if readers else ReadVerdict(behavior="allow")
            if verdict.behavior == "allow" or not read_only:
                reason = f"rules {names}; the rest is read-only" if uncovered else f"rules {names}"
                return ShellFastPath(verdict=verdict, reason=reason)
    if not read_only:
        return None
    verdict = scope.judge(plan_for(None), tool_name=tool_name)
    return ShellFastPath(verdict=verdict, reason="read-only")
