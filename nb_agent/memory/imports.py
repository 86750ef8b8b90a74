"""``@path`` imports in memory files, as Claude Code reads them.

An import is ``@`` at the start of a line or after a blank, followed by a path (``\\ ``
escapes a blank): ``@docs/style.md``, ``@./notes.md``, ``@~/.claude/mine.md``,
``@/abs/file.md``; a ``#fragment`` and punctuation ending the sentence are dropped. Imports inside code spans and code blocks
are not imports (Markdown is parsed with markdown-it, not searched with a regex).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path

from markdown_it import MarkdownIt

__all__ = ["MAX_IMPORT_DEPTH", "import_paths", "resolve_import"]

MAX_IMPORT_DEPTH = 5
"""Imports may import further files up to this many hops from the file that started."""

_IMPORT = re.compile(r"(?:^|\s)@((?:[^\s\\]|\\ )+)")
_NOT_A_PATH_START = re.compile(r"^[#%^&*()]+")
_TRAILING = ".,;:!?)]"
"""Punctuation after an import ends the sentence, not the path (``see @a.md, @b.md.``)."""


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    return MarkdownIt("commonmark")


def _text_runs(text: str) -> Iterator[str]:
    """The Markdown's prose: inline text, without code spans, code blocks or HTML."""
    for token in _parser().parse(text):
        if token.type != "inline" or not token.children:
            continue
        run: list[str] = []
        for child in token.children:
            if child.type == "text":
                run.append(child.content)
            elif child.type in ("softbreak", "hardbreak"):
                run.append("\n")
            else:  # a code span, a link, emphasis: a path does not continue across it
                if run:
                    yield "".join(run)
                run = []
        if run:
            yield "".join(run)


def _looks_like_path(path: str) -> bool:
    if path.startswith(("./", "~/")) or (path.startswith("/") and path != "/"):
        return True
    return not path.startswith("@") and not _NOT_A_PATH_START.match(path) and bool(re.match(r"[A-Za-z0-9._-]", path))


def import_paths(text: str) -> list[str]:
    """The import paths of a memory file's text, in order, each once."""
    found: list[str] = []
    for run in _text_runs(text):
        for match in _IMPORT.finditer(run):
            path = match.group(1).split("#", 1)[0].rstrip(_TRAILING).replace("\\ ", " ")
            if path and _looks_like_path(path) and path not in found:
                found.append(path)
    return found


def resolve_import(raw: str, *, importer: Path, home: Path) -> Path:
    """The absolute path an import names: ``~`` is the home folder, a relative path is
    relative to the importing file's folder. ``..`` is resolved lexically (links are
    judged by the caller, on the real path)."""
    if raw == "~" or raw.startswith("~/"):
        path = home / raw[2:]
    elif raw.startswith("/"):
        path = Path(raw)
    else:
        path = importer.parent / raw
    return Path(os.path.normpath(path))
