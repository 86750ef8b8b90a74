"""Checks on a Bash command that no mode and no allow rule skips (issue 11, 7 and 9).

Read deny rules and protected files hold in every mode, ``bypassPermissions`` and an
allow rule such as ``Bash(cat:*)`` included (as the file checks of Claude Code's Bash
tool do):

* a command naming a file that a ``Read`` deny rule denies is denied (``cat .env``,
  ``cp .env x``, ``sudo cat .env``, ``< .env``, a glob that matches it);
* a command reading a file a ``Read`` ask rule covers, or a whole directory tree in
  which a ``Read`` deny or ask rule covers files (a read-only reader, or a program that
  copies or sends trees: ``cp -r``, ``tar``, ``rsync``, ``docker build``...), asks (``grep -r key .``), and a hook's
  "allow" does not answer that ask (as for an ask rule on Read itself);
* with a ``Bash(...)`` deny rule, a command whose program is computed when it runs
  (``$RM x``, ``eval "$x"``, ``sh -c "$x"``) asks: the rule cannot be checked;
* a command writing a protected file asks: an output redirection to it, or a command
  that is not read-only naming it (``tee -a ~/.bashrc``, ``cp x .git/hooks/pre-commit``,
  ``dd of=~/.profile``) or naming the home directory or one above it (``tar xf a -C ~``);
  ``git config`` / ``remote`` / ``submodule`` that may write git configuration asks too.

Command strings (``sh -c '…'``, ``su -c``, ``eval``) are judged as command lines too.
A part whose paths are computed when it runs (``cat "$f"``, ``xargs cat``) cannot be
listed here. In the modes that ask for it anyway nothing changes; in
``bypassPermissions`` it runs (the sandbox, when on, hides the files Read deny rules name).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from nb_agent.permissions.paths import candidate_paths
from nb_agent.permissions.protected import protected_reason
from nb_agent.permissions.read_plan import ReadVerdict, rule_may_match_below
from nb_agent.shell.command_parts import CommandAnalysis, CommandPart, analyse_command, command_strings
from nb_agent.shell.read_only import part_is_read_only
from nb_agent.shell.read_scope import bash_read_plan

if TYPE_CHECKING:
    from nb_agent.permissions.fast_path import ReadScope

__all__ = ["shell_guard"]

# They name files without reading what is in them.
_NO_CONTENT = frozenset("rm rmdir mkdir touch chmod chown chgrp unlink".split())
_MAX_NESTING = 3
# Programs known to read or send every file under a directory they are given (a tree
# read by a read-only command counts too); `make -C src`, `python x.py src` are not judged.
_TREE_COPIERS = frozenset(
    "cp tar zip 7z rar rsync scp sftp rclone gsutil aws az docker podman buildah kubectl git curl wget nc ncat socat".split()
)
# They run a command line given as arguments (a computed one hides what runs).
_STRING_RUNNERS = frozenset("eval sh bash dash zsh ksh mksh ash su runuser script watch".split())


def shell_guard(command: str, *, scope: ReadScope, tool_name: str, depth: int = 0) -> ReadVerdict | None:
    """Deny, or an ask no mode skips, for ``command``; ``None`` when neither applies.

    Command strings run by a shell or ``eval`` (``sh -c 'echo x >> ~/.bashrc'``) are
    judged too, as the command lines they are (in the same directory: a guess)."""
    analysis = analyse_command(command)
    asks: list[str] = []
    if depth < _MAX_NESTING:
        for part in analysis.parts:
            for layer in part.unwrapped.layers:
                for line in command_strings(layer):
                    nested = shell_guard(line, scope=scope, tool_name=tool_name, depth=depth + 1)
                    if nested is not None and nested.behavior == "deny":
                        return nested
                    if nested is not None:
                        asks.append(nested.message.removeprefix(f"{tool_name}: ").removesuffix(" This always needs approval.").rstrip("."))
    if (rule := _shell_deny_rule(scope, tool_name)) and (hidden := _hidden_program(analysis)):
        asks.append(f"{hidden}, which the rule {rule} cannot be checked against")
    for part in analysis.parts:
        plan = bash_read_plan(
            analysis, cwd=scope.cwd, project_dir=scope.anchor, home=scope.home, parts=[part], with_writes=True
        )
        if plan.unknown is not None:
            continue  # see the module docstring
        program = _program(part)
        reads_content = program not in _NO_CONTENT
        may_write = not part_is_read_only(part)
        if may_write and program == "git" and (what := _git_configures(part)):
            asks.append(what)
        for read in plan.reads:
            if reads_content and (rule := scope.matching_rule(read.path, "deny")):
                return ReadVerdict(
                    behavior="deny", message=f"{tool_name} would read {_shown(read.path)}, which the rule {rule} denies."
                )
            if reads_content and (rule := scope.matching_rule(read.path, "ask")):
                asks.append(f"it would read {_shown(read.path)}, and the rule {rule} asks")
            copies_trees = not may_write or program in _TREE_COPIERS
            if read.kind == "tree" and copies_trees and (found := _tree_rule(scope, read.path)):
                behavior, rule = found
                verb = "denies" if behavior == "deny" else "asks for"
                asks.append(f"it would read everything under {_shown(read.path)}, where the rule {rule} {verb} some files")
            if may_write and (reason := protected_reason(read.path)):
                asks.append(f"it may change {_shown(read.path)}: {reason}")
            elif may_write and read.kind == "tree" and _holds_home(read.path, scope.home):
                asks.append(f"it may change files anywhere under {_shown(read.path)}, your shell startup files included")
        for path in plan.writes:
            if reason := protected_reason(path):
                asks.append(f"it writes {_shown(path)}: {reason}")
    if not asks:
        return None
    return ReadVerdict(behavior="ask", message=f"{tool_name}: " + "; ".join(dict.fromkeys(asks[:3])) + ". This always needs approval.")


def _shell_deny_rule(scope: ReadScope, tool_name: str) -> str | None:
    for rule in scope.rules:
        if rule.behavior == "deny" and rule.tool_name == tool_name and rule.content is not None:
            return rule.text
    return None


def _hidden_program(analysis: CommandAnalysis) -> str | None:
    """Why what runs is not known before the line runs (``$RM x``, ``eval "$x"``)."""
    if not analysis.parsed.analysable:
        return "the command line could not be parsed with certainty"
    for part in analysis.parts:
        argv = part.unwrapped.layers[-1]
        if not argv:
            continue
        if not argv[0].is_literal:
            return f"the program {argv[0].raw} is computed when the line runs"
        if argv[0].value.rsplit("/", 1)[-1] in _STRING_RUNNERS and not all(word.is_literal for word in argv[1:]):
            return f"{argv[0].value} runs a command line computed when the line runs"
    return None


def _git_configures(part: CommandPart) -> str | None:
    """``git config``/``remote``/``submodule`` that may write git configuration, which
    names commands git runs later (``core.hooksPath``, ``core.pager``, ``ext::`` URLs)."""
    words = [word.value for word in part.unwrapped.layers[-1][1:] if word.is_literal]
    subcommand = next((word for word in words if not word.startswith("-")), None)
    if subcommand in ("config", "remote", "submodule"):
        return f"git {subcommand} may change git configuration (.git/config, ~/.gitconfig), which can run commands"
    return None


def _holds_home(directory: Path, home: Path) -> bool:
    """Is ``directory`` the home directory or above it (``tar -C ~``, ``cp -r x /``)?"""
    return any(spelling == home or spelling in home.parents for spelling in candidate_paths(directory))


def _program(part: CommandPart) -> str | None:
    argv = part.unwrapped.layers[-1]
    return argv[0].value.rsplit("/", 1)[-1] if argv and argv[0].is_literal else None


def _tree_rule(scope: ReadScope, directory: Path) -> tuple[str, str] | None:
    """The Read deny rule (else ask rule) that may match something below ``directory``."""
    found = [
        (behavior, text)
        for behavior, text, anchor, pattern in scope.tree_rules()
        if rule_may_match_below(directory, anchor=anchor, pattern=pattern)
    ]
    return min(found, key=lambda item: item[0] != "deny") if found else None


def _shown(path: Path) -> str:
    return str(candidate_paths(path)[0])
