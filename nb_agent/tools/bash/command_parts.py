"""A command line as the list of simple commands every Bash decision looks at.

The read-only classifier and the permission rules (allow, ask, deny) must agree on what
a command line runs, or a comment, a ``$'…'`` word or a newline makes one of them see
less than bash does. :func:`analyse_command` parses once (tree-sitter, plus the checks
of :mod:`nb_agent.tools.bash.parse_checks` and :mod:`nb_agent.tools.bash.lexer_check`)
and gives every simple command, including those inside subshells, loops, ``if`` and
functions, with its wrappers peeled (:mod:`nb_agent.tools.bash.wrappers`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from nb_agent.tools.bash.parse import ParsedCommand, SimpleCommand, parse_command
from nb_agent.tools.bash.parse_words import Word
from nb_agent.tools.bash.wrappers import Unwrapped, unwrap

__all__ = ["CommandAnalysis", "CommandPart", "analyse_command", "words_text"]

# Control characters other than tab and newline: bash and tree-sitter may split them
# differently, and no legitimate command needs them.
CONTROL_CHARACTERS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def words_text(words: tuple[Word, ...] | list[Word], *, raw: bool = False) -> str:
    """Words joined by single spaces: unquoted values where literal, source text otherwise."""
    return " ".join(word.raw if raw or not word.is_literal else word.value for word in words)


@dataclass(frozen=True, kw_only=True)
class CommandPart:
    """One simple command of a command line, with its wrappers peeled."""

    simple: SimpleCommand
    unwrapped: Unwrapped

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
        texts: list[str] = []
        for layer in layers:
            if not layer:
                continue
            for raw in (False, True):
                texts.append(words_text(layer, raw=raw))
            head = layer[0]
            if head.is_literal and "/" in head.value:
                texts.append(" ".join([head.value.rsplit("/", 1)[-1], words_text(layer[1:])]).strip())
        return [text for text in dict.fromkeys(texts) if text]

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


@lru_cache(maxsize=256)
def analyse_command(command: str) -> CommandAnalysis:
    """Parse ``command`` once for every decision about it (cached: a permission check and
    the executor ask about the same text several times)."""
    parsed = parse_command(command)
    parts = tuple(CommandPart(simple=simple, unwrapped=unwrap(simple.argv)) for simple in parsed.commands)
    return CommandAnalysis(source=command, parsed=parsed, parts=parts)
