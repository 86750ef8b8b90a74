"""Wildcard matching in time linear in the text, for rule patterns.

Rules come from settings files, an untrusted folder's deny and ask rules included, and a
backtracking regex of many ``.*`` (``**/**/**/…/x``, ``*a*a*a…b``) takes exponential time
on a text it does not match: one permission check would freeze the kernel. So patterns
become token lists matched by moving a *set* of text positions through the tokens
(a Thompson-style simulation): O(tokens × text) whatever the pattern.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

__all__ = ["Wildcard", "glob_pattern", "shell_wildcard"]

TokenKind = Literal["char", "one", "class", "star", "any", "dirs"]


@dataclass(frozen=True, slots=True)
class _Token:
    kind: TokenKind
    """``char``: ``text``; ``one``: a character but ``/``; ``class``: one character ``cls``
    matches; ``star``: characters but ``/``; ``any``: any characters; ``dirs``: zero or
    more whole ``…/`` segments."""
    text: str = ""
    cls: re.Pattern[str] | None = None


@dataclass(frozen=True, slots=True)
class Wildcard:
    """A compiled pattern; :meth:`fullmatch` says whether it matches the whole text."""

    tokens: tuple[_Token, ...]

    def fullmatch(self, text: str) -> bool:
        n = len(text)
        reach = [True] + [False] * n  # reach[p]: the tokens so far can end at position p
        for token in self.tokens:
            reach = _step(token, text, reach, n)
            if not any(reach):
                return False
        return reach[n]


def _step(token: _Token, text: str, reach: list[bool], n: int) -> list[bool]:
    after = [False] * (n + 1)
    if token.kind == "star":  # from any reached p, on while no "/" is crossed
        run = False
        for q in range(n + 1):
            run = reach[q] or (run and text[q - 1] != "/")
            after[q] = run
    elif token.kind == "any":
        run = False
        for q in range(n + 1):
            run = run or reach[q]
            after[q] = run
    elif token.kind == "dirs":  # p itself, or any later q just past a "/"
        seen = False
        for q in range(n + 1):
            after[q] = reach[q] or (seen and q > 0 and text[q - 1] == "/")
            seen = seen or reach[q]
    else:
        for p in range(n):
            if reach[p] and _one(token, text[p]):
                after[p + 1] = True
    return after


def _one(token: _Token, char: str) -> bool:
    if token.kind == "char":
        return char == token.text
    if token.kind == "one":
        return char != "/"
    assert token.cls is not None
    return token.cls.fullmatch(char) is not None


@lru_cache(maxsize=1024)
def glob_pattern(glob: str) -> Wildcard:
    """A gitignore-style glob: ``**/`` any whole directories, a final ``**`` anything,
    ``*`` and ``?`` within one name, ``[...]`` / ``[!...]`` classes, ``\\`` escapes."""
    tokens: list[_Token] = []
    i, n = 0, len(glob)
    while i < n:
        c = glob[i]
        if glob.startswith("**/", i) and (i == 0 or glob[i - 1] == "/"):
            if not tokens or tokens[-1].kind != "dirs":  # **/**/ is **/
                tokens.append(_Token("dirs"))
            i += 3
        elif glob.startswith("**", i) and i + 2 == n and (i == 0 or glob[i - 1] == "/"):
            tokens.append(_Token("any"))
            i += 2
        elif c == "*":
            if not tokens or tokens[-1].kind != "star":
                tokens.append(_Token("star"))
            i += 1
        elif c == "?":
            tokens.append(_Token("one"))
            i += 1
        elif c == "\\" and i + 1 < n:
            tokens.append(_Token("char", glob[i + 1]))
            i += 2
        elif c == "[" and (end := glob.find("]", i + 2 if glob.startswith(("[!", "[^"), i) else i + 1)) != -1:
            body = glob[i + 1 : end]
            negate = body[:1] in ("!", "^")
            body = body[1:] if negate else body
            tokens.append(_Token("class", cls=re.compile("[" + ("^" if negate else "") + body.replace("\\", "\\\\") + "]", re.DOTALL)))
            i = end + 1
        else:
            tokens.append(_Token("char", c))
            i += 1
    return Wildcard(tuple(tokens))


@lru_cache(maxsize=1024)
def shell_wildcard(pattern: str) -> Wildcard:
    """A rule's ``*`` pattern: ``*`` matches anything, ``\\*`` is a literal star."""
    tokens: list[_Token] = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("\\*", i):
            tokens.append(_Token("char", "*"))
            i += 2
        elif pattern[i] == "*":
            if not tokens or tokens[-1].kind != "any":
                tokens.append(_Token("any"))
            i += 1
        else:
            tokens.append(_Token("char", pattern[i]))
            i += 1
    return Wildcard(tuple(tokens))
