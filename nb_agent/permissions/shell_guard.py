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
Paths computed when the command runs (``cat "$f"``, what ``xargs cat`` or ``tar -T list``
reads from its list) cannot be listed here; the paths it names that can be still are. In
the modes that ask for it anyway nothing changes; in ``bypassPermissions`` it runs (the
sandbox, when on, hides the files Read deny rules name).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from nb_agent.permissions.paths import candidate_paths
from nb_agent.permissions.protected import protected_reason
from nb_agent.permissions.read_plan import ReadVerdict, rule_may_match_below
from nb_agent.shell.command_parts import CommandAnalysis, CommandPart, analyse_command, command_strings
from nb_agent.shell.programs import ProgramSpec, program_spec
from nb_agent.shell.read_only import part_is_read_only
from nb_agent.shell.read_scope import bash_read_plan

if TYPE_CHECKING:
    from nb_agent.permissions.fast_path import ReadScope

__all__ = ["shell_guard"]

_MAX_NESTING = 3


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
        # An unknown plan lists what could be listed (`grep -r --exclude-from=x .` still
        # reads `.`); what could not is the module docstring's case.
        spec = _program(part)
        reads_content = spec is None or spec.opens_operands  # `rm .env` does not read it
        may_write = not part_is_read_only(part)
        if may_write and spec is not None and spec.configures and (what := spec.configures(part.unwrapped.layers[-1][1:])):
            asks.append(what)
        for read in plan.reads:
            if reads_content and (rule := scope.matching_rule(read.path, "deny")):
                return ReadVerdict(
                    behavior="deny", message=f"{tool_name} would read {_shown(read.path)}, which the rule {rule} denies."
                )
            if reads_content and (rule := scope.matching_rule(read.path, "ask")):
                asks.append(f"it would read {_shown(read.path)}, and the rule {rule} asks")
            # A tree read by a read-only command, or by a program known to read or send every
            # file under a directory it is given; `make -C src`, `python x.py src` are not judged.
            copies_trees = not may_write or (spec is not None and spec.tree_copier)
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
        spec = program_spec(argv[0].value)
        # It runs a command line given as arguments (a computed one hides what runs).
        if spec.command_string is not None and spec.wrapper is None and not all(word.is_literal for word in argv[1:]):
            return f"{argv[0].value} runs a command line computed when the line runs"
    return None


def _holds_home(directory: Path, home: Path) -> bool:
    """Is ``directory`` the home directory or above it (``tar -C ~``, ``cp -r x /``)?"""
    return any(spelling == home or spelling in home.parents for spelling in candidate_paths(directory))


def _program(part: CommandPart) -> ProgramSpec | None:
    argv = part.unwrapped.layers[-1]
    return program_spec(argv[0].value) if argv and argv[0].is_literal else None


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
