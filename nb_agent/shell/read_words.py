"""The paths one shell word may name, as the read scope lists them (issue 11, 7; issue 21 §3).

Paths are resolved in the directories a command may run in (``cd`` inside the line can
move it), with ``~``, ``$HOME`` and loop variables expanded and globs matched as bash
matches them (:mod:`nb_agent.shell.globs`). Anything that cannot be resolved before the
command runs raises :class:`Unknown`, which makes the plan unknown and the command ask.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from nb_agent.shell.globs import GlobTooBroad, expand_glob, unescape
from nb_agent.shell.parse import Loop
from nb_agent.shell.parse_words import Word, literal_word
from nb_agent.shell.read_plan import PathRead, ReadKind

__all__ = ["Unknown", "WordScope", "add_cwds", "add_path", "add_word", "expand_words", "is_plain_tilde", "resolve", "word_texts"]

# Long options whose values are never paths (git log --since="$since").
_NON_PATH_LONG = frozenset(
    "since until after before author committer grep format pretty date max-count "
    "regexp glob iglob type sort color colors".split()
)
_HOME_PATH = re.compile(r'"?\$(?:HOME|\{HOME\})(/[^$`"\'\\*?\[\]{}~]*)?"?')
_SIMPLE_VARIABLE = re.compile(r'"?\$(?:\{)?([A-Za-z_][A-Za-z0-9_]*)(?:\})?"?')
_MAX_CLUSTER = 32


class Unknown(Exception):
    """The reads cannot be listed statically; the message says why."""


@dataclass
class WordScope:
    """Where a command line's words are resolved, and what it reads so far."""

    cwds: set[Path]
    cwd_known: bool
    home: Path
    env: Mapping[str, str]
    loops: dict[str, Loop]
    home_reassigned: bool = False
    glob_state_changed: bool = False
    """The line or its environment may change how bash matches globs."""
    reads: list[PathRead] = field(default_factory=list)
    writes: list[PathRead] = field(default_factory=list)
    partly_unknown: str | None = None
    """Why some reads cannot be listed (``xargs``, ``--files-from``), while the rest can."""


def add_cwds(scope: WordScope, kind: ReadKind) -> None:
    if not scope.cwd_known:
        raise Unknown("the command changes to a directory that is not known before it runs")
    scope.reads.extend(PathRead(path=cwd, kind=kind) for cwd in scope.cwds)


def add_word(scope: WordScope, word: Word, kind: ReadKind, *, into: list[PathRead] | None = None) -> None:
    for text in _path_texts(scope, word):
        for candidate in _spellings(text):
            add_path(scope, candidate, kind, into=scope.reads if into is None else into)


def expand_words(scope: WordScope, words: Sequence[Word]) -> list[Word]:
    """The words as the program receives them, where bash's pathname expansion can be
    known now: each glob becomes the names it matches (a name may start with ``-`` and be
    taken for an option), or its own text when nothing matches. Other words stay."""
    expanded: list[Word] = []
    for word in words:
        if not word.has_glob or word.has_expansion or word.has_brace or len(scope.cwds) != 1:
            expanded.append(word)
            continue
        try:
            texts = _path_texts(scope, word)
        except Unknown:
            expanded.append(word)  # listed, or found unknown, when it is read
            continue
        matches = texts[1:] or texts[:1]  # `_glob_texts` puts the pattern's own text first
        expanded.extend(literal_word(text) for text in matches)
    return expanded


def word_texts(scope: WordScope, word: Word) -> list[Word]:
    """Every word ``word`` may become when the command runs (globs matched, loop values and
    ``$HOME`` put in), each as a literal word; raises :class:`Unknown` when not known."""
    if word.is_literal:
        return [word]
    return [literal_word(text) for text in _path_texts(scope, word)]


def _path_texts(scope: WordScope, word: Word) -> list[str]:
    """The texts a word may stand for as a path (globs and ``~`` expanded)."""
    if word.is_literal:
        return [word.value]
    if word.has_expansion:
        return _expansion_texts(scope, word)
    if word.has_brace:
        raise Unknown(f"{word.raw} is a brace expansion")
    text = word.pattern if word.has_glob else word.value
    if text.startswith("~"):
        if not is_plain_tilde(word):
            raise Unknown(f"{word.raw} names another user's home")
        text = str(scope.home) + text[1:]
    if word.has_glob:
        return _glob_texts(scope, text, word)
    return [text]


def _expansion_texts(scope: WordScope, word: Word) -> list[str]:
    option, equals, value = word.value.partition("=")
    if equals and option.startswith("--") and option[2:] in _NON_PATH_LONG:
        return []
    if (home := _HOME_PATH.fullmatch(word.raw)) and scope.env.get("HOME") and not scope.home_reassigned:
        return [scope.env["HOME"] + (home.group(1) or "")]  # `$HOME/.bashrc`: the home bash will use
    match = _SIMPLE_VARIABLE.fullmatch(word.raw)
    loop = scope.loops.get(match.group(1)) if match else None
    if loop is None or loop.words is None:
        raise Unknown(f"{word.raw} is a path computed when the command runs")
    texts: list[str] = []
    for value_word in loop.words:
        if value_word.has_expansion:
            raise Unknown(f"{word.raw} takes values computed when the command runs")
        texts.extend(_path_texts(scope, value_word))
    return texts


def _glob_texts(scope: WordScope, pattern: str, word: Word) -> list[str]:
    """What bash expands the pattern to in each possible directory, and the pattern's own
    text (which bash passes when nothing matches)."""
    if not scope.cwd_known and not pattern.startswith("/"):
        raise Unknown(f"{word.raw} is matched in a directory not known before the command runs")
    if scope.glob_state_changed:
        raise Unknown(f"{word.raw} is matched with shell options set in the command or its environment")
    found = [unescape(pattern)]
    for cwd in scope.cwds:
        try:
            matches = expand_glob(pattern, cwd)
        except GlobTooBroad:
            raise Unknown(f"{word.raw} matches more than 2000 files") from None
        if matches is None:
            raise Unknown(f"{word.raw} is a pattern bash may match differently from this check")
        found.extend(matches)
    return found


def is_plain_tilde(word: Word) -> bool:
    return not word.has_expansion and (word.value == "~" or word.value.startswith("~/"))


def _spellings(text: str) -> Iterable[str]:
    """The word, and the parts of it an option may carry a path in: after ``=``
    (``--file=x``, ``of=x``), after any short option letter (``-fx``, ``-rfx``), after ``:``
    (``HEAD:path``); and each without a leading ``@`` or ``<`` (curl's ``-d @file``,
    ``-F f=@file``, ``-F f=<file`` read the file)."""
    found = [text]
    if "=" in text:
        found.append(text.partition("=")[2])  # `--file=x`, and `dd of=x`
    if text.startswith("-") and not text.startswith("--") and len(text) > 2:
        # `-fx`, and `-rfx` (any letter of a cluster may be the one taking the value)
        found.extend(text[index:] for index in range(2, min(len(text), _MAX_CLUSTER)))
    if ":" in text:
        found.append(text.partition(":")[2])
    for spelling in list(found):
        if spelling[:1] in ("@", "<"):
            found.append(spelling[1:])
    yield from dict.fromkeys(found)


def add_path(scope: WordScope, text: str, kind: ReadKind, *, into: list[PathRead]) -> None:
    if not text or text == "-":
        return
    if text.startswith("~"):
        text = str(scope.home) + text[1:] if text == "~" or text.startswith("~/") else text
    if not text.startswith("/") and not scope.cwd_known:
        raise Unknown(f"{text} is read in a directory not known before the command runs")
    for cwd in scope.cwds:
        path = resolve(text, cwd, scope.home)
        read_kind: ReadKind = kind
        if kind == "file" and _maybe_directory(path):
            read_kind = "tree"  # a content reader given a directory may read all of it
        into.append(PathRead(path=path, kind=read_kind))


def _maybe_directory(path: Path) -> bool:
    """A directory, or a path that cannot be looked at (``/proc/1/root/...``: EACCES)."""
    try:
        return path.is_dir()
    except OSError:
        return True


def resolve(text: str, cwd: Path, home: Path) -> Path:
    if text == "~" or text.startswith("~/"):
        return home / text[2:]
    path = Path(text)
    return path if path.is_absolute() else cwd / path
