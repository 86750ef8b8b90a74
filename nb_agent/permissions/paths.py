"""Path handling for permission rules: gitignore-style globs and working-directory checks.

Claude Code's file rules (``Read(...)``, ``Edit(...)``) follow the gitignore spec with four
anchors: ``//abs/path`` (filesystem root), ``~/path`` (home), ``/path`` (the project root,
i.e. the directory holding the settings file) and ``path`` / ``./path`` (the current
directory). A pattern without an inner slash (``*.env``) matches at any depth below its root.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from nb_agent.permissions.wildcards import Wildcard, glob_pattern

__all__ = [
    "PathPattern",
    "anchor_directory",
    "candidate_paths",
    "glob_matches",
    "home_directory",
    "is_within",
    "parse_path_pattern",
    "relative_to",
    "resolve_tool_path",
    "safe_realpath",
]


@dataclass(frozen=True, kw_only=True, slots=True)
class PathPattern:
    """A file rule's content split into the directory it is anchored at and a glob."""

    anchor: str
    """``"root"`` (``//``), ``"home"`` (``~/``), ``"project"`` (``/``) or ``"cwd"``."""
    glob: str
    """The gitignore glob, relative to the anchor directory, without a leading slash."""
    anchored: bool
    """False for a bare name like ``*.env``: it may match at any depth below the anchor."""


def parse_path_pattern(content: str) -> PathPattern:
    """Split a rule's path content into anchor and glob (no filesystem access)."""
    if content.startswith("//"):
        return PathPattern(anchor="root", glob=content[2:], anchored=True)
    if content == "~" or content.startswith("~/"):
        return PathPattern(anchor="home", glob=content[2:], anchored=True)
    if content.startswith("/"):
        return PathPattern(anchor="project", glob=content[1:], anchored=True)
    if content.startswith("./"):
        return PathPattern(anchor="cwd", glob=content[2:], anchored=True)
    # gitignore: a slash at the start or in the middle anchors the pattern; a trailing
    # slash ("build/") only marks a directory.
    anchored = "/" in content.rstrip("/")
    return PathPattern(anchor="cwd", glob=content, anchored=anchored)


def anchor_directory(pattern: PathPattern, *, root: Path, home: Path) -> Path:
    """The directory a pattern's glob is relative to; ``root`` serves project and cwd."""
    if pattern.anchor == "root":
        return Path("/")
    if pattern.anchor == "home":
        return home
    return root


def glob_matches(pattern: PathPattern, relative: str) -> bool:
    """Does ``relative`` (a POSIX path below the anchor) match, gitignore-style?

    As in gitignore, a pattern naming a directory also covers everything inside it, so
    each leading sub-path of ``relative`` is tried.
    """
    if not relative or relative == ".":
        return pattern.glob in ("", "**")
    regex = _compile(pattern.glob, pattern.anchored)
    parts = relative.split("/")
    return any(regex.fullmatch("/".join(parts[:i])) for i in range(len(parts), 0, -1))


def _compile(glob: str, anchored: bool) -> Wildcard:
    glob = glob.rstrip("/") + ("/**" if glob.endswith("/") and glob.strip("/") else "")
    if glob in ("", "**"):
        return glob_pattern("**")
    return glob_pattern(glob if anchored else "**/" + glob)


def resolve_tool_path(raw: str, *, cwd: Path, home: Path | None = None) -> Path:
    """Absolute path of a tool's ``file_path`` with ``~`` expanded, *not* normalised.

    ``..`` is kept on purpose: ``link/../x`` means different files lexically and to the
    OS when ``link`` is a symlink; :func:`candidate_paths` yields both readings.
    """
    home = home or home_directory()
    text = raw.strip()
    if text == "~" or text.startswith("~/"):
        path = home / text[2:]
    elif text.startswith("~"):  # ``~user/...``: the file tools expand it, so must we
        path = Path(os.path.expanduser(text))
    else:
        path = Path(text)
        if not path.is_absolute():
            path = cwd / path
    return path


def candidate_paths(path: Path) -> tuple[Path, ...]:
    """The normalised path and, when different, its symlink-resolved real path.

    Deny and ask rules match if *any* candidate matches; allow rules and the working
    directory check need *every* candidate to pass, so a symlink cannot smuggle a write
    out of (or a denied file into) a permitted directory.
    """
    found: list[Path] = []
    normal = os.path.normpath(path)
    for text in (normal, safe_realpath(path), safe_realpath(normal)):
        candidate = Path(text)
        if candidate not in found:
            found.append(candidate)
    return tuple(found)


def safe_realpath(path: Path | str) -> str:
    """``os.path.realpath``, or the normalised path when a link may not be followed."""
    # A link this process may not follow (``/proc/1/root``: EACCES) is opened by the
    # command as the same user and fails the same way: its spelling as written stands.
    try:
        return os.path.realpath(path)
    except OSError:
        return os.path.normpath(path)


def is_within(path: Path, directories: list[Path] | tuple[Path, ...]) -> bool:
    """Is ``path`` (both as written and as resolved) inside one of ``directories``?"""
    # Directories in both spellings too, so ``/tmp/x`` and ``/private/tmp/x`` agree.
    roots = [c for d in directories for c in candidate_paths(d)]
    return all(any(_under(c, root) for root in roots) for c in candidate_paths(path))


def relative_to(path: Path, root: Path) -> str | None:
    """``path`` relative to ``root`` in POSIX form, or ``None`` when it lies outside."""
    if not _under(path, root):
        return None
    rel = os.path.relpath(path, root)
    return "" if rel == "." else Path(rel).as_posix()


def _under(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def home_directory() -> Path:
    """``$HOME`` (tests point it at a temporary directory), else the OS's idea of home."""
    return Path(os.environ.get("HOME") or Path.home())
