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
from nb_agent.shell.wrappers import Unwrapped, unwrap

__all__ = ["CommandAnalysis", "CommandPart", "analyse_command", "command_strings", "words_text"]

# Programs that run (part of) their argv as a command in ways :mod:`wrappers` does not
# model: deny and ask rules are matched against every tail of their argv (`watch rm x`,
# `flock f rm x`, `find . -exec rm {} ;`). Over-matching is the safe side for those rules.
_COMMAND_RUNNERS = frozenset(
    "watch unbuffer flock strace ltrace taskset chroot nsenter runuser su script busybox "
    "parallel systemd-run firejail proot fakeroot valgrind catchsegv chronic caffeinate "
    "nocache sg unshare dbus-run-session xvfb-run torsocks proxychains proxychains4 pkexec "
    "find coproc".split()
)
# Programs whose option value (or joined arguments) is a command line of its own: it is
# parsed and its parts are matched too (`sh -c 'rm x'`, `eval rm x`, `env -S 'rm x'`).
_SHELLS = frozenset("sh bash dash zsh ksh mksh ash busybox".split())
_COMMAND_STRING_OPTIONS = {"su": "-c", "runuser": "-c", "script": "-c", "flock": "-c"}
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
            if layer and layer[0].is_literal and layer[0].value.rsplit("/", 1)[-1] in _COMMAND_RUNNERS:
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
    ``su -c STRING``, ``eval WORDS``, ``env -S STRING``, ``watch WORDS``."""
    if not layer or not layer[0].is_literal:
        return []
    name = layer[0].value.rsplit("/", 1)[-1]
    args = layer[1:]
    if name in ("eval", "watch"):
        return [" ".join(word.value for word in args)] if args and all(word.is_literal for word in args) else []
    found: list[str] = []
    for index, word in enumerate(args):
        if not word.is_literal:
            continue
        value = word.value
        if name == "env" and value.startswith(("-S", "--split-string")):
            inline = value[2:] if value.startswith("-S") else value.partition("=")[2]
            nxt = args[index + 1] if index + 1 < len(args) else None
            found.append(inline or (nxt.value if nxt is not None and nxt.is_literal else ""))
        takes_string = (name in _SHELLS and value.startswith("-") and not value.startswith("--") and "c" in value) or (
            _COMMAND_STRING_OPTIONS.get(name) == value or (name in ("su", "runuser") and value == "--command")
        )
        if takes_string and index + 1 < len(args) and args[index + 1].is_literal:
            found.append(args[index + 1].value)
    return [line for line in found if line.strip()]


@lru_cache(maxsize=256)
def analyse_command(command: str, *, depth: int = 0) -> CommandAnalysis:
    """Parse ``command`` once for every decision about it (cached: a permission check and
    the executor ask about the same text several times). ``depth`` counts the
    ``sh -c`` strings this line was found in."""
    parsed = parse_command(command)
    parts = tuple(CommandPart(simple=simple, unwrapped=unwrap(simple.argv), depth=depth) for simple in parsed.commands)
    return CommandAnalysis(source=command, parsed=parsed, parts=parts)
