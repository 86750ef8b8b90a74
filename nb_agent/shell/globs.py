"""Pathname expansion as bash does it, for the read scope (issue 21 §3).

Python's :mod:`glob` reads patterns its own way: ``[^x]`` is a set holding ``^`` (bash: any
character but ``x``), ``[[:alpha:]]`` is a set holding ``[`` and friends, and a pattern
that matches nothing is dropped where bash keeps it as a word. A read scope judging the
files Python found would miss the ones bash gives the program. This module matches names
the way bash (5.x, default shell options: no ``dotglob``, ``nocaseglob``, ``extglob``,
``globstar``, ``nullglob``; ``globasciiranges``) does, and answers ``None`` for what it
does not model, which makes the read scope ask.

A pattern here is the word's text with every quoted character escaped by a backslash
(:attr:`nb_agent.shell.parse_words.Word.pattern`).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path

__all__ = ["GlobTooBroad", "expand_glob", "has_glob", "unescape"]

_MAX_MATCHES = 2000
_CLASSES = {
    "alnum": "a-zA-Z0-9", "alpha": "a-zA-Z", "blank": " \\t", "cntrl": "\\x00-\\x1f\\x7f",
    "digit": "0-9", "graph": "!-~", "lower": "a-z", "print": " -~", "punct": "!-/:-@\\[-`{-~",
    "space": " \\t\\n\\r\\f\\v", "upper": "A-Z", "word": "a-zA-Z0-9_", "xdigit": "0-9A-Fa-f",
}


class GlobTooBroad(Exception):
    """The pattern matches more names than the read scope lists."""


def has_glob(pattern: str) -> bool:
    """Does ``pattern`` hold an unescaped ``*``, ``?`` or ``[``?"""
    escaped = False
    for char in pattern:
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif char in "*?[":
            return True
    return False


def unescape(pattern: str) -> str:
    """The word bash passes when the pattern matches nothing (quote removal)."""
    return re.sub(r"\\(.)", r"\1", pattern, flags=re.DOTALL)


def expand_glob(pattern: str, cwd: Path) -> list[str] | None:
    """The paths ``pattern`` expands to in ``cwd``, as bash would give them (relative
    patterns give relative paths); ``[]`` when nothing matches (bash then passes the
    pattern itself, :func:`unescape`); ``None`` when it holds a construct not modelled
    here (``[[=a=]]``, ``[[.x.]]``, a ``/`` inside brackets). Raises
    :class:`GlobTooBroad` past 2000 matches."""
    absolute = pattern.startswith("/")
    segments = [segment for segment in pattern.split("/") if segment]
    if any(_regex(segment) is None for segment in segments if has_glob(segment)):
        return None
    found: list[str] = []
    start = "/" if absolute else ""
    directories_only = pattern.endswith("/")
    for path in _walk(start, segments, cwd):
        if directories_only and not os.path.isdir(_on_disk(path, cwd)):
            continue
        found.append(path + ("/" if directories_only else ""))
        if len(found) > _MAX_MATCHES:
            raise GlobTooBroad(pattern)
    return found


def _walk(prefix: str, segments: list[str], cwd: Path) -> Iterator[str]:
    if not segments:
        yield prefix
        return
    segment, rest = segments[0], segments[1:]

    def joined(name: str) -> str:
        return f"{prefix}{name}" if prefix.endswith("/") or not prefix else f"{prefix}/{name}"

    if not has_glob(segment):
        name = unescape(segment)
        candidate = joined(name)
        if os.path.lexists(_on_disk(candidate, cwd)):
            yield from _walk(candidate, rest, cwd)
        return
    regex = _regex(segment)
    assert regex is not None
    directory = _on_disk(prefix or ".", cwd)
    try:
        names = sorted(os.listdir(directory))
    except OSError:
        return
    explicit_dot = unescape(segment).startswith(".") and segment[:1] in (".", "\\")
    for name in names:
        if name.startswith(".") and not explicit_dot:
            continue  # a leading dot is matched only by a leading dot
        if name in (".", ".."):
            continue
        if regex.fullmatch(name):
            candidate = joined(name)
            if rest and not os.path.isdir(_on_disk(candidate, cwd)):
                continue
            yield from _walk(candidate, rest, cwd)
    if explicit_dot and not _bash_skips_dots():
        for special in (".", ".."):  # `.*` is `..` too, and `grep -r x .*` reads the parent
            if regex.fullmatch(special):
                yield from _walk(joined(special), rest, cwd)


@lru_cache(maxsize=1)
def _bash_skips_dots() -> bool:
    """Does the bash that runs commands skip ``.`` and ``..`` (``globskipdots``, on by
    default since 5.2)? Older bash matches them with ``.*``."""
    bash = shutil.which("bash")
    if bash is None:
        return False
    try:
        done = subprocess.run([bash, "-c", "shopt -q globskipdots"], capture_output=True, timeout=10, env={})
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


def _on_disk(path: str, cwd: Path) -> str:
    return path if path.startswith("/") else os.path.join(cwd, path)


def _regex(segment: str) -> re.Pattern[str] | None:
    """The segment as a regular expression over one name; ``None`` when not modelled."""
    out: list[str] = []
    index = 0
    while index < len(segment):
        char = segment[index]
        if char == "\\" and index + 1 < len(segment):
            out.append(re.escape(segment[index + 1]))
            index += 2
        elif char == "*":
            out.append("[^/]*")
            index += 1
        elif char == "?":
            out.append("[^/]")
            index += 1
        elif char == "[":
            bracket = _bracket(segment, index)
            if bracket is None:
                return None
            if bracket == ("", index + 1):  # no closing `]`: a literal `[`
                out.append(re.escape("["))
                index += 1
                continue
            text, index = bracket
            out.append(text)
        else:
            out.append(re.escape(char))
            index += 1
    return re.compile("".join(out), re.DOTALL)


def _bracket(segment: str, start: int) -> tuple[str, int] | None:
    """A bracket expression at ``start`` as a regex class and the index after it;
    ``("", start + 1)`` when it does not close (bash then reads ``[`` literally);
    ``None`` for what is not modelled."""
    index = start + 1
    negate = index < len(segment) and segment[index] in "!^"
    if negate:
        index += 1
    parts: list[str] = []
    first = True
    while index < len(segment):
        char = segment[index]
        if char == "]" and not first:
            if not parts:
                return None
            return ("[" + ("^" if negate else "") + "".join(parts) + "]", index + 1)
        first = False
        if char == "[" and index + 1 < len(segment) and segment[index + 1] in ":=.":
            kind = segment[index + 1]
            end = segment.find(kind + "]", index + 2)
            if end < 0:
                return None
            if kind != ":" or segment[index + 2 : end] not in _CLASSES:
                return None  # equivalence classes, collating symbols, unknown classes
            parts.append(_CLASSES[segment[index + 2 : end]])
            index = end + 2
            continue
        if char == "\\" and index + 1 < len(segment):
            char = segment[index + 1]
            index += 1
        if char == "/":
            return None
        if index + 2 < len(segment) and segment[index + 1] == "-" and segment[index + 2] != "]":
            low, high = char, segment[index + 2]
            if high == "\\" and index + 3 < len(segment):
                high = segment[index + 3]
                index += 1
            if ord(low) > ord(high):
                return None  # bash matches nothing there; not worth modelling
            parts.append(f"{re.escape(low)}-{re.escape(high)}")
            index += 3
            continue
        parts.append(re.escape(char))
        index += 1
    return ("", start + 1)
