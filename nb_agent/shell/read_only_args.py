"""Option scanning for the read-only classifier, failing closed.

Two styles, for two kinds of program:

- :func:`parse_options` is getopt with an allow-list: every option must be known, so an
  unknown one, an abbreviation (GNU tools accept ``--outp`` for ``--output``) or a word
  the shell might turn into an option all make the command unclassifiable (``None``).
- :func:`has_denied_option` is a deny-list for programs with too many harmless options to
  list (``git log``, ``rg``, ``find``): it looks for the few that run programs or write,
  counting any prefix of a denied long option as that option.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from nb_agent.shell.parse import Word

__all__ = ["OptionSpec", "ParsedArgs", "fixed_long_option", "has_denied_option", "parse_options"]


@dataclass(frozen=True, kw_only=True)
class OptionSpec:
    """The options a program accepts, by their spelling (``-n``, ``--quiet``)."""

    flags: frozenset[str] = frozenset()
    valued: frozenset[str] = frozenset()
    """Options taking a value: attached (``-k2``, ``--key=2``) or the next word."""
    attached: frozenset[str] = frozenset()
    """Options whose value is optional and can only be attached: ``-i[str]``,
    ``--replace[=str]`` (xargs), ``--iso-8601[=spec]`` (date)."""
    stop_at_positional: bool = False
    """Options end at the first operand (POSIX getopt; ``xargs``, ``timeout``)."""

    @classmethod
    def of(
        cls,
        flags: str = "",
        valued: str = "",
        attached: str = "",
        *,
        stop_at_positional: bool = False,
    ) -> OptionSpec:
        """Build a spec from whitespace-separated option spellings."""
        return cls(
            flags=frozenset(flags.split()),
            valued=frozenset(valued.split()),
            attached=frozenset(attached.split()),
            stop_at_positional=stop_at_positional,
        )


@dataclass(frozen=True, kw_only=True)
class ParsedArgs:
    """Options (spelling and value) and operands, in order."""

    options: tuple[tuple[str, Word | None], ...]
    positionals: tuple[Word, ...]

    def has(self, *names: str) -> bool:
        """True when any of ``names`` was given."""
        return any(name in names for name, _ in self.options)

    def values(self, *names: str) -> list[Word]:
        """The values given to any of ``names``, in order."""
        return [value for name, value in self.options if name in names and value is not None]


def parse_options(args: Sequence[Word], spec: OptionSpec) -> ParsedArgs | None:
    """Split ``args`` into options and operands; ``None`` when anything is not understood."""
    options: list[tuple[str, Word | None]] = []
    positionals: list[Word] = []
    index = 0
    while index < len(args):
        word = args[index]
        index += 1
        if not word.is_literal and word.may_be_option and fixed_long_option(word) is None:
            return None  # `$x` or `*` could become any option at run time
        text = word.value
        if word.is_literal and text == "--":
            positionals.extend(args[index:])
            break
        is_option = text.startswith("-") and text != "-"
        if not is_option or (not word.is_literal and not text.startswith("--")):
            positionals.append(word)
            if spec.stop_at_positional:
                positionals.extend(args[index:])
                break
            continue
        if text.startswith("--"):
            name, equals, attached = text.partition("=")
            if name in spec.valued:
                if equals:
                    options.append((name, _synthetic(attached, word)))
                elif index < len(args):
                    options.append((name, args[index]))
                    index += 1
                else:
                    return None
            elif name in spec.attached:
                options.append((name, _synthetic(attached, word) if equals else None))
            elif name in spec.flags and not equals:
                options.append((name, None))
            else:
                return None
            continue
        consumed = _short_cluster(text, args, index, spec, options)
        if consumed is None:
            return None
        index += consumed
    return ParsedArgs(options=tuple(options), positionals=tuple(positionals))


def _short_cluster(
    text: str, args: Sequence[Word], index: int, spec: OptionSpec,
    options: list[tuple[str, Word | None]],
) -> int | None:
    """Parse ``-abc``; returns how many following words were consumed as a value."""
    for position in range(1, len(text)):
        name = "-" + text[position]
        rest = text[position + 1 :]
        if name in spec.valued:
            if rest:
                options.append((name, _synthetic(rest, None)))
                return 0
            if index < len(args):
                options.append((name, args[index]))
                return 1
            return None
        if name in spec.attached:
            options.append((name, _synthetic(rest, None) if rest else None))
            return 0
        if name not in spec.flags:
            return None
        options.append((name, None))
    return 0


_NOT_IN_OPTION_NAME = frozenset("$`{}*?[]~<>\"'\\")


def fixed_long_option(word: Word) -> str | None:
    """The name of ``--name=$value``-like words whose option name cannot change at run time.

    The value may hold expansions; the name must be plain text and the word must not be
    cut by word splitting (so ``--since="$d"`` is ``--since``, ``--$x`` is unknown).
    """
    text = word.value
    if word.may_split or not text.startswith("--") or "=" not in text:
        return None
    name = text.partition("=")[0]
    if any(char in _NOT_IN_OPTION_NAME for char in name):
        return None
    return name


def _synthetic(text: str, source: Word | None) -> Word:
    """The value part of an option word; as literal as the word it came from."""
    literal = source is None or source.is_literal
    return Word(raw=text, value=text, is_literal=literal, has_expansion=not literal,
                has_glob=False, may_be_option=text.startswith("-") or not literal)


def has_denied_option(
    args: Sequence[Word],
    *,
    denied_long: Iterable[str] = (),
    denied_short: str = "",
    valued_short: str = "",
    valued_long: Iterable[str] = (),
) -> bool:
    """True when a word before ``--`` is, abbreviates or may become a denied option.

    ``denied_long`` are names without dashes (``output``); ``denied_short`` and
    ``valued_short`` are option letters. Values of ``valued_*`` options are skipped, so
    ``rg -e "$pattern"`` is fine while ``rg "$pattern"`` is not (it could be ``--pre=x``).
    """
    long_names = tuple(denied_long)
    valued_long_names = frozenset(valued_long)
    index = 0
    while index < len(args):
        word = args[index]
        index += 1
        if not word.is_literal and fixed_long_option(word) is None:
            if word.may_be_option:
                return True
            continue
        text = word.value
        if text == "--":
            return False
        if text.startswith("--"):
            name, equals, _ = text[2:].partition("=")
            if name and any(denied.startswith(name) for denied in long_names):
                return True
            if name in valued_long_names and not equals:
                index += 1
        elif text.startswith("-") and len(text) > 1:
            for position, letter in enumerate(text[1:], start=1):
                if letter in denied_short:
                    return True
                if letter in valued_short:
                    if position == len(text) - 1:
                        index += 1  # the value is the next word
                    break
    return False
