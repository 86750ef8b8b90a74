"""Bash rules (``Bash(git diff:*)``, ``Bash(npm run test)``) matched on the parsed command.

Rules see the command line the way the read-only classifier does
(:func:`nb_agent.shell.command_parts.analyse_command`): every simple command, inside
lists, pipelines, subshells, ``if``, loops and heredoc lines, with comments dropped,
quotes and ``$'…'`` decoded and wrappers peeled by the same
:func:`nb_agent.shell.wrappers.unwrap`.

- A *deny* or *ask* rule applies when it matches any spelling of any part (every wrapper
  layer, quoted or not, the program's base name), or any part of a plain text split that
  also looks inside substitutions: over-matching is the safe side.
- An *allow* rule vouches for a part only when the whole line was understood (no
  substitution, no function definition, no parse problem), the part's redirections and
  assignments are harmless, and the rule matches the part as written or through
  scheduling-only wrappers (``timeout``, ``nice``, ``time``, ``stdbuf``, ``nohup``).
  :func:`shell_allow_coverage` says which parts the allow rules cover; the rest must be
  read-only or the command asks.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from nb_agent.permissions.wildcards import shell_wildcard
from nb_agent.shell.command_parts import CommandAnalysis, CommandPart, analyse_command
from nb_agent.shell.parse_words import literal_word
from nb_agent.shell.read_only import assignment_is_safe, structure_is_safe
from nb_agent.shell.wrappers import unwrap

if TYPE_CHECKING:
    from nb_agent.permissions.rules import PermissionRule

__all__ = ["ShellCoverage", "analysis_of", "shell_allow_coverage", "shell_pattern_matches", "shell_rule_matches", "wildcard_matches"]


def analysis_of(command: str) -> CommandAnalysis | None:
    """The parsed view of ``command``; ``None`` when the parser (``tools`` extra) is missing."""
    try:
        return analyse_command(command)
    except ImportError:  # pragma: no cover - tree-sitter is an optional extra
        return None


def wildcard_matches(pattern: str, text: str) -> bool:
    """``*`` matches anything, ``\\*`` is a literal star; a trailing `` *`` is optional
    (``git *`` also matches a bare ``git``, as in Claude Code). Linear time
    (:mod:`nb_agent.permissions.wildcards`): rules may come from an untrusted folder."""
    if pattern.endswith(" *") and pattern.replace("\\*", "").count("*") == 1 and text == pattern[:-2].replace("\\*", "*"):
        return True
    return shell_wildcard(pattern).fullmatch(text)


def shell_pattern_matches(pattern: str, command: str) -> bool:
    """One rule pattern against one simple command's text."""
    command = command.strip()
    if pattern.endswith(":*") and "*" not in pattern[:-2].replace("\\*", ""):
        prefix = pattern[:-2].rstrip()
        # Word boundary: ``git status:*`` matches ``git status -s``, never ``git statusx``.
        return command == prefix or command.startswith(prefix + " ")
    if "*" in pattern.replace("\\*", ""):
        return wildcard_matches(pattern, command)
    return command == pattern.replace("\\*", "*")


def shell_rule_matches(pattern: str, command: str, *, strict: bool) -> bool:
    """Does a ``Bash(pattern)`` rule match ``command``? ``strict`` for allow rules."""
    if command.strip() == pattern:
        return True  # an exact rule naming the whole (even compound) command
    analysis = analysis_of(command)
    if strict:
        if analysis is None or not _vouchable(analysis):
            return False
        return all(_allows_part(pattern, part) for part in analysis.parts)
    spellings = set(_text_variants(command))
    if analysis is not None:
        for part in analysis.parts:
            spellings.update(part.spellings())
    return any(shell_pattern_matches(pattern, text) for text in spellings)


@dataclass(frozen=True, kw_only=True)
class ShellCoverage:
    """Which simple commands of a line the allow rules cover."""

    analysis: CommandAnalysis
    rules: tuple[PermissionRule | None, ...]
    """Per part (``analysis.parts``), the first allow rule covering it, or ``None``."""

    @property
    def uncovered(self) -> list[CommandPart]:
        return [part for part, rule in zip(self.analysis.parts, self.rules) if rule is None]

    @property
    def used(self) -> list[PermissionRule]:
        return list(dict.fromkeys(rule for rule in self.rules if rule is not None))


def shell_allow_coverage(rules: Sequence[PermissionRule], command: str) -> ShellCoverage | None:
    """Per simple command, the allow rule (among ``rules``, already filtered to the tool)
    covering it; ``None`` when no rule may vouch for any part of this line."""
    analysis = analysis_of(command)
    if analysis is None or not _vouchable(analysis):
        return None
    covering: list[PermissionRule | None] = []
    for part in analysis.parts:
        covering.append(
            next((rule for rule in rules if rule.content is None or _allows_part(rule.content, part)), None)
        )
    return ShellCoverage(analysis=analysis, rules=tuple(covering))


def _vouchable(analysis: CommandAnalysis) -> bool:
    """Understood, and every redirection, heredoc and loop variable harmless."""
    return structure_is_safe(analysis)


def _allows_part(pattern: str, part: CommandPart) -> bool:
    simple = part.simple
    if not simple.argv:
        return False  # a standalone assignment (`PATH=/tmp/x`) changes later commands
    if not all(assignment_is_safe(a) for a in simple.assignments):
        return False
    return any(shell_pattern_matches(pattern, text) for text in part.allow_spellings())


# --- plain-text spellings, for deny and ask rules ---------------------------------------

_OPERATORS = ("&&", "||", ";;", "|&", ";", "|", "&", "\n")
_SUBSTITUTION_MARKERS = ("$(", "`", "<(", ">(")
_KEYWORDS = frozenset({"if", "then", "else", "elif", "while", "until", "do", "!", "{", "(", "time"})
_ENV_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")


def _text_variants(command: str) -> set[str]:
    """Every spelling of every part a text split finds, substitutions opened up
    (``echo $(rm -rf x)`` exposes ``rm -rf x``); wrappers peeled by the same
    :func:`~nb_agent.shell.wrappers.unwrap` as the parsed view."""
    flattened = command
    for marker in (*_SUBSTITUTION_MARKERS, ")"):
        flattened = flattened.replace(marker, ";")
    variants: set[str] = {command.strip()}
    for text in (command, flattened):
        for part in _naive_split(text):
            variants.add(part)
            tokens = _tokens(part)
            while tokens and (_ENV_ASSIGNMENT.match(tokens[0]) or tokens[0] in _KEYWORDS or tokens[0][:1] in "({"):
                tokens = tokens[1:] if tokens[0][:1] not in "({" or len(tokens[0]) == 1 else [tokens[0][1:], *tokens[1:]]
            if not tokens:
                continue
            unwrapped = unwrap([literal_word(token) for token in tokens])
            layers = [list(layer) for layer in unwrapped.layers]
            if not unwrapped.complete:
                layers.extend(layers[-1][index:] for index in range(1, len(layers[-1])))
            for layer in layers:
                words = [word.value for word in layer]
                if words:
                    variants.add(" ".join(words))
                    variants.add(" ".join([words[0].rsplit("/", 1)[-1], *words[1:]]))
    return {variant for variant in variants if variant}


def _naive_split(command: str) -> list[str]:
    return [p.strip() for p in re.split(r"&&|\|\||[;|&\n]", command) if p.strip()]


def _tokens(part: str) -> list[str]:
    try:
        return shlex.split(part, comments=False)
    except ValueError:
        return part.split()
