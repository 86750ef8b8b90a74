"""A program's option grammar, and argv scanning with it, failing closed.

An :class:`Options` grammar says which options a program accepts and which take a value
(attached ``-k2`` / ``--key=2`` or the next word), which take an optional value (attached
only), whether options end at the first operand, whether long options may be
abbreviated (GNU ``getopt_long`` accepts ``--outp`` for ``--output``) and whether
``-NUM`` is an option (``grep -5``, ``head -20``).

- :func:`parse_options` is getopt with that grammar: an unknown option or a word the
  shell might turn into an option makes the words unclassifiable (``None``). Long
  abbreviations are resolved only when asked (the read scope must know what the program
  does; the read-only check refuses them, which only costs a prompt).
- :func:`has_denied_option` is a deny-list for programs with too many harmless options to
  list (``git log``, ``rg``, ``file``): it looks for the few that run programs or write,
  counting any prefix of a denied long option as that option.
- :func:`may_give` says whether words could carry one of some options, in any spelling
  (for words no grammar parsed).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from nb_agent.shell.parse_words import Word

__all__ = ["Options", "ParsedArgs", "fixed_long_option", "has_denied_option", "may_give", "parse_options"]


@dataclass(frozen=True, kw_only=True)
class Options:
    """The options a program accepts, by their spelling (``-n``, ``--quiet``)."""

    flags: frozenset[str] = frozenset()
    valued: frozenset[str] = frozenset()
    """Options taking a value: attached (``-k2``, ``--key=2``) or the next word."""
    optional: frozenset[str] = frozenset()
    """Options whose value is optional and can only be attached: ``-i[str]``,
    ``--replace[=str]`` (xargs), ``--iso-8601[=spec]`` (date)."""
    pairs: frozenset[str] = frozenset()
    """Options taking the next two words, a name and a value (``jq --rawfile NAME FILE``);
    the value is recorded."""
    stop_at_operand: bool = False
    """Options end at the first operand (POSIX getopt; ``xargs``, ``timeout``)."""
    abbreviations: bool = False
    """Long options may be abbreviated to any unambiguous prefix (GNU ``getopt_long``)."""
    numeric: bool = False
    """``-NUM`` is an option (``grep -5`` for ``-C 5``, ``head -20``)."""

    @classmethod
    def of(
        cls,
        flags: str = "",
        valued: str = "",
        optional: str = "",
        pairs: str = "",
        *,
        stop_at_operand: bool = False,
        abbreviations: bool = False,
        numeric: bool = False,
    ) -> Options:
        """Build a grammar from whitespace-separated option spellings."""
        return cls(
            flags=frozenset(flags.split()),
            valued=frozenset(valued.split()),
            optional=frozenset(optional.split()),
            pairs=frozenset(pairs.split()),
            stop_at_operand=stop_at_operand,
            abbreviations=abbreviations,
            numeric=numeric,
        )

    @property
    def names(self) -> frozenset[str]:
        """Every option spelling the grammar knows."""
        return self.flags | self.valued | self.optional | self.pairs

    def long_option(self, name: str, *, abbreviations: bool) -> str | None:
        """The long option ``name`` (``--x``) stands for: itself when known, else (with
        ``abbreviations``, when the program accepts them) the one option it is an
        unambiguous prefix of; ``None`` when unknown or ambiguous."""
        if name in self.names:
            return name
        if not (abbreviations and self.abbreviations) or len(name) < 3:
            return None
        candidates = [known for known in self.names if known.startswith(name) and known.startswith("--")]
        return candidates[0] if len(candidates) == 1 else None


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


def parse_options(args: Sequence[Word], spec: Options, *, abbreviations: bool = False) -> ParsedArgs | None:
    """Split ``args`` into options and operands; ``None`` when anything is not understood.

    ``abbreviations``: resolve abbreviated long options (when the program accepts them)
    to the option they stand for; otherwise an abbreviation is not understood."""
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
            if spec.stop_at_operand:
                positionals.extend(args[index:])
                break
            continue
        if text.startswith("--"):
            consumed = _long_option(text, word, args, index, spec, options, abbreviations=abbreviations)
        else:
            consumed = _short_cluster(text, args, index, spec, options)
        if consumed is None:
            return None
        index += consumed
    return ParsedArgs(options=tuple(options), positionals=tuple(positionals))


def _long_option(
    text: str, word: Word, args: Sequence[Word], index: int, spec: Options,
    options: list[tuple[str, Word | None]], *, abbreviations: bool,
) -> int | None:
    """Parse ``--name[=value]``; returns how many following words were consumed."""
    written, equals, attached = text.partition("=")
    name = spec.long_option(written, abbreviations=abbreviations)
    if name is None:
        return None
    return _option(name, _synthetic(attached, word) if equals else None, args, index, spec, options)


def _short_cluster(
    text: str, args: Sequence[Word], index: int, spec: Options,
    options: list[tuple[str, Word | None]],
) -> int | None:
    """Parse ``-abc``; returns how many following words were consumed as a value."""
    if spec.numeric and text[1:].isdigit():
        options.append(("-NUM", _synthetic(text[1:], None)))
        return 0
    for position in range(1, len(text)):
        name = "-" + text[position]
        if name in spec.valued or name in spec.optional:  # the rest of the cluster is its value
            rest = text[position + 1 :]
            return _option(name, _synthetic(rest, None) if rest else None, args, index, spec, options)
        if name not in spec.flags:
            return None
        options.append((name, None))
    return 0


def _option(
    name: str, attached: Word | None, args: Sequence[Word], index: int, spec: Options,
    options: list[tuple[str, Word | None]],
) -> int | None:
    """Record option ``name`` with its ``attached`` value, or the next word when it needs
    one; returns how many following words were consumed (``None``: not understood)."""
    if name in spec.pairs:
        if attached is not None or index + 1 >= len(args):
            return None
        options.append((name, args[index + 1]))
        return 2
    if name in spec.valued:
        if attached is not None:
            options.append((name, attached))
            return 0
        if index < len(args):
            options.append((name, args[index]))
            return 1
        return None
    if name in spec.optional:
        options.append((name, attached))
        return 0
    if attached is not None or name not in spec.flags:
        return None  # a flag given a value: the program refuses it
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


def may_give(words: Sequence[Word], options: Iterable[str]) -> bool:
    """Could any of ``words`` be one of ``options`` (``-R``, ``--follow``) in any spelling:
    the option itself, ``--name=value``, an abbreviation of a long one, a short one
    anywhere in a cluster, or a word the shell may turn into an option?"""
    wanted = tuple(options)
    if not wanted:
        return False
    letters = {option[1] for option in wanted if len(option) == 2 and option[0] == "-" and option[1] != "-"}
    longs = [option for option in wanted if option.startswith("--")]
    singles = [option for option in wanted if option.startswith("-") and not option.startswith("--") and len(option) > 2]
    for word in words:
        if not word.is_literal:
            if word.may_be_option:
                return True
            continue
        text = word.value
        if text == "--":
            return False
        if text.startswith("--"):
            name = text.partition("=")[0]
            if len(name) > 2 and any(option.startswith(name) for option in longs):
                return True
        elif text.startswith("-") and len(text) > 1:
            if text in singles or letters.intersection(text[1:]):
                return True
    return False
