"""Rule wildcards are matched in linear time, with the meaning the regex translation had:
exhaustively compared on small patterns and texts, and pathological patterns from an
untrusted folder's deny rules answer at once."""

from __future__ import annotations

import itertools
import re

import pytest

from nb_agent.permissions.paths import PathPattern, glob_matches
from nb_agent.permissions.shell_rules import shell_pattern_matches, wildcard_matches
from nb_agent.permissions.wildcards import glob_pattern, shell_wildcard


def reference_glob(glob: str) -> re.Pattern[str]:
    """The regex the glob meant (the translation this module replaced), as an oracle."""
    out, i = [], 0
    while i < len(glob):
        if glob.startswith("**/", i) and (i == 0 or glob[i - 1] == "/"):
            out.append("(?:.*/)?")
            i += 3
        elif glob.startswith("**", i) and i + 2 == len(glob) and (i == 0 or glob[i - 1] == "/"):
            out.append(".*")
            i += 2
        else:
            out.append({"*": "[^/]*", "?": "[^/]"}.get(glob[i], re.escape(glob[i])))
            i += 1
    return re.compile("".join(out), re.DOTALL)


PIECES = ["a", "b", "/", "*", "?", "**/", "**"]
TEXTS = ["".join(t) for n in range(6) for t in itertools.product("ab/", repeat=n)]


def test_globs_agree_with_the_regex_meaning_exhaustively() -> None:
    checked = 0
    for n in range(1, 5):
        for pieces in itertools.product(PIECES, repeat=n):
            glob = "".join(pieces)
            reference, linear = reference_glob(glob), glob_pattern(glob)
            for text in TEXTS:
                assert linear.fullmatch(text) == (reference.fullmatch(text) is not None), (glob, text)
                checked += 1
    assert checked > 1_000_000


def test_shell_wildcards_agree_with_the_regex_meaning_exhaustively() -> None:
    texts = ["".join(t) for n in range(6) for t in itertools.product("a *", repeat=n)]
    for n in range(1, 6):
        for pieces in itertools.product(["a", " ", "*", "\\*"], repeat=n):
            pattern = "".join(pieces)
            regex = "".join(re.escape("*") if p == "\\*" else ".*" if p == "*" else re.escape(p) for p in pieces)
            if regex.endswith(re.escape(" ") + ".*") and regex.count(".*") == 1:
                regex = regex[: -len(re.escape(" ") + ".*")] + "(?: .*)?"
            reference = re.compile(regex, re.DOTALL)
            for text in texts:
                assert wildcard_matches(pattern, text) == (reference.fullmatch(text) is not None), (pattern, text)


@pytest.mark.timeout(10)
@pytest.mark.parametrize(
    ("check", "expected"),
    [
        (lambda: glob_matches(PathPattern(anchor="cwd", glob="**/" * 40 + "x", anchored=True), "/".join(["a"] * 200)), False),
        (lambda: glob_matches(PathPattern(anchor="cwd", glob="**/a*/" * 20 + "x", anchored=True), "/".join(["a"] * 200)), False),
        (lambda: glob_matches(PathPattern(anchor="cwd", glob="*a" * 50 + "b", anchored=False), "a" * 300), False),
        (lambda: shell_pattern_matches("* " * 60 + "z", "ls " + "a " * 300), False),
        (lambda: shell_wildcard("*a" * 60 + "b").fullmatch("a" * 2000), False),
        (lambda: glob_matches(PathPattern(anchor="cwd", glob="**/" * 40 + "x", anchored=True), "/".join(["a"] * 200) + "/x"), True),
    ],
)
def test_pathological_patterns_answer_at_once(check, expected) -> None:
    assert check() is expected
