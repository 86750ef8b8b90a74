"""A command line as the list of simple commands every Bash decision looks at.

The read-only classifier and the permission rules (allow, ask, deny) must agree on what
a command line runs, or a comment, a ``$'…'`` word or a newline makes one of them see
less than bash does. :func:`analyse_command` parses once (tree-sitter, plus the checks
of :mod:`nb_agent.shell.parse_checks`) and gives every simple command, including those inside subshells, loops, ``if`` and
functions, with its wrappers peeled (:mod:`nb_agent.shell.wrappers`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from nb_agent.shell.parse import ParsedCommand, SimpleCommand, parse_command
from nb_agent.shell.parse_words import Word
from nb_agent.shell.programs import CommandString, program_spec
from nb_agent.shell.wrappers import Unwrapped, unwrap

__all__ = ["CommandAnalysis", "CommandPart", "analyse_command", "command_strings", "words_text"]

_MAX_NESTING = 3

# Control characters other than tab and newline, and Unicode blanks (which bash keeps
# inside a word and the parser may split on): bash and tree-sitter may split them
# differently, and no legitimate command needs them.
CONTROL_CHARACTERS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\x85\xa0\u1680\u2000-\u200b\u2028\u2029\u202f\u205f\u3000\ufeff]")


def words_text(words: tuple[Word, ...] | list[Word], *, raw: bool = False) -> str:
    """Words joined by single spaces: unquoted values where literal, source text otherwise."""
    return " ".join(word.raw if raw or not word.is_literal else word.value for word in words)


@dataclass(frozen=True, kw_only=True)
class CommandPart:
    """One simple command of a command line, with its wrappers peeled."""

    simple: SimpleCommand
    unwrapped: Unwrapped
    depth: int = 0
    """How deep inside ``sh -c '…'`` / ``eval`` strings this part was found."""

    @property
    def argv(self) -> tuple[Word, ...]:
        return self.simple.argv

    def spellings(self) -> list[str]:
        """Every text a deny or ask rule is matched against: each wrapper layer, unquoted
        and as written, with and without a directory on the program name; when a wrapper
        was not understood, every tail of its argv too (over-matching is the safe side)."""
        layers = list(self.unwrapped.layers)
        if not self.unwrapped.complete:
            last = layers[-1]
            layers.extend(last[index:] for index in range(1, len(last)))
        for layer in list(layers):
            # A program that runs part of its argv in a way no wrapper grammar models
            # (`watch rm x`, `flock f rm x`, `find . -exec rm {} ;`): deny and ask rules
            # see every tail of it. Over-matching is the safe side for those rules.
            if layer and layer[0].is_literal and program_spec(layer[0].value).runs_argv_tail:
                layers.extend(layer[index:] for index in range(1, len(layer)))
        texts: list[str] = []
        for layer in layers:
            if not layer:
                continue
            for raw in (False, True):
                texts.append(words_text(layer, raw=raw))
            head = layer[0]
            if head.is_literal and "/" in head.value:
                texts.append(" ".join([head.value.rsplit("/", 1)[-1], words_text(layer[1:])]).strip())
        texts.extend(self._nested_spellings(layers))
        return [text for text in dict.fromkeys(texts) if text]

    def _nested_spellings(self, layers: list[tuple[Word, ...]]) -> list[str]:
        texts: list[str] = []
        if self.depth >= _MAX_NESTING:
            return texts
        for layer in layers:
            for line in command_strings(layer):
                for part in analyse_command(line, depth=self.depth + 1).parts:
                    texts.extend(part.spellings())
        return texts

    def allow_spellings(self) -> list[str]:
        """Texts an allow rule may match: the command as written, and what it runs
        through wrappers that change nothing but scheduling."""
        texts = [words_text(self.unwrapped.layers[0])]
        if self.unwrapped.only_safe_wrappers:
            texts.extend(words_text(layer) for layer in self.unwrapped.layers[1:])
        return [text for text in dict.fromkeys(texts) if text]


@dataclass(frozen=True, kw_only=True)
class CommandAnalysis:
    """A parsed command line and its simple commands."""

    source: str
    parsed: ParsedCommand
    parts: tuple[CommandPart, ...]

    @property
    def understood(self) -> bool:
        """Parsed cleanly, with nothing that runs code out of sight: no substitutions,
        no function definitions, no unsafe expansions, no control characters. Only then
        can rules or the classifier vouch for the command part by part."""
        parsed = self.parsed
        return (
            parsed.analysable
            and bool(self.parts)
            and not CONTROL_CHARACTERS.search(self.source)
            and not parsed.has_command_substitution
            and not parsed.has_process_substitution
            and not parsed.has_function_definition
            and not parsed.has_unsafe_expansion
            and not parsed.has_arithmetic
        )


def command_strings(layer: tuple[Word, ...]) -> list[str]:
    """The literal command lines ``layer`` runs through a shell: ``sh -c STRING``,
    ``su -c STRING``, ``eval WORDS``, ``env -S STRING``, ``watch WORDS`` (each program's
    :attr:`~nb_agent.shell.programs.ProgramSpec.command_string`). They are parsed, and
    their parts matched and judged, too."""
    if not layer or not layer[0].is_literal:
        return []
    taking = program_spec(layer[0].value).command_string
    args = layer[1:]
    if taking is None:
        return []
    if taking.kind == "joined":
        return [" ".join(word.value for word in args)] if args and all(word.is_literal for word in args) else []
    found: list[str] = []
    for index, word in enumerate(args):
        if not word.is_literal:
            continue
        following = args[index + 1] if index + 1 < len(args) else None
        given = _string_option(taking, word.value)
        if given is None:
            continue
        if given:
            found.append(given)
        elif following is not None and following.is_literal:
            found.append(following.value)
    return [line for line in found if line.strip()]


def _string_option(taking: CommandString, value: str) -> str | None:
    """Whether ``value`` is the option that gives the command string: ``""`` when the
    string is the next word, the string itself when attached, ``None`` when it is not."""
    if taking.kind == "shell":  # `sh -c`, `bash -ec`, `sh -xc`: a short cluster holding c
        return "" if value.startswith("-") and not value.startswith("--") and "c" in value else None
    for option in taking.options:
        if option.startswith("--"):
            name, equals, attached = value.partition("=")
            if len(name) > 3 and option.startswith(name):  # GNU programs take abbreviations
                return attached if equals else ""
        elif value == option:
            return ""
        elif value.startswith(option):
            return value[len(option) :]
    return None


@lru_cache(maxsize=256)
def analyse_command(command: str, *, depth: int = 0) -> CommandAnalysis:
    """Parse ``command`` once for every decision about it (cached: a permission check and
    the executor ask about the same text several times). ``depth`` counts the
    ``sh -c`` strings this line was found in."""
    parsed = parse_command(command)
    parts = tuple(CommandPart(simple=simple, unwrapped=unwrap(simple.argv), depth=depth) for simple in parsed.commands)
    return CommandAnalysis(source=command, parsed=parsed, parts=parts)
