"""Path handling shared by the file tools: expand, resolve against the session cwd, key.

The model may pass absolute paths, paths relative to the session's cwd (which Bash's
``cd`` moves), or ``~`` paths. Every file tool resolves them the same way so that Read and
Edit agree on which file they mean, and keys the file-state cache by the real path so a
symlink and its target share one entry.
"""

from __future__ import annotations

import difflib
import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, PrivateAttr

from nb_agent.errors import ToolError

if TYPE_CHECKING:
    from nb_agent.tools.base import ToolUseContext

def denied_read_globs(ctx: ToolUseContext, root: Path) -> list[str]:
    """ripgrep ``--glob`` exclusions for files under ``root`` that the Read deny or ask
    rules cover (``ctx.services.read_scope``, the permission policy's), so a search never
    returns what Read would refuse or ask for."""
    scope = ctx.services.read_scope
    if scope is None:
        return []
    return list(scope(ctx).denied_globs(root))


def expand_path(raw: str, cwd: Path) -> Path:
    """``raw`` as an absolute, normalized path (``~`` expanded, ``..`` folded, links kept).

    Raises :class:`ToolError` for a path no OS call could accept (empty, NUL byte).
    """
    text = raw.strip()
    if not text:
        raise ToolError("The path is empty.")
    if "\x00" in text:
        raise ToolError("The path contains a NUL byte.")
    expanded = os.path.expanduser(text)
    if not os.path.isabs(expanded):
        expanded = os.path.join(os.fspath(cwd), expanded)
    return Path(os.path.normpath(expanded))


def state_key(path: Path) -> str:
    """The file-state cache key: the real path (symlinks resolved, missing parts kept)."""
    return os.path.realpath(path)


def rule_path(raw: str, resolved: str | None) -> str:
    """What a permission rule such as ``Edit(src/**)`` is matched against.

    ``resolved`` is the absolute path ``validate_input`` computed (it has the cwd). It is
    normalized but symlinks are kept: the permission engine adds the real path itself and
    matches deny rules against both spellings. Without it (an input re-parsed after a hook
    rewrote it) the path is returned as written, for the engine to resolve.
    """
    return resolved if resolved is not None else raw.strip()


def is_unc_path(raw: str) -> bool:
    """A Windows network path (``\\\\server\\share``): touching it may leak NTLM credentials."""
    text = raw.strip()
    return text.startswith("\\\\") or (os.name == "nt" and text.startswith("//"))


def similar_names(path: Path, *, limit: int = 3) -> list[str]:
    """Up to ``limit`` siblings of a missing ``path`` whose names look alike (typo help)."""
    parent = path.parent
    try:
        names = os.listdir(parent)
    except OSError:
        return []
    stem = path.stem.lower()
    # Same stem with another extension (``main.py`` for ``main.ts``) ranks first.
    same_stem = sorted(n for n in names if Path(n).stem.lower() == stem and n != path.name)
    close = difflib.get_close_matches(path.name, names, n=limit, cutoff=0.6)
    ordered = list(dict.fromkeys([*same_stem, *close]))
    return [os.path.join(parent, n) for n in ordered[:limit]]


def missing_file_message(path: Path, cwd: Path) -> str:
    """``File does not exist`` with the cwd and any look-alike names (for the model)."""
    message = f"File does not exist: {path}. Current working directory: {cwd}."
    suggestions = similar_names(path)
    if suggestions:
        message += " Did you mean " + " or ".join(suggestions) + "?"
    return message


def _tidy_schema(schema: dict[str, Any]) -> None:
    """Optional fields as their plain type, no titles: the short schema models know."""
    schema.pop("title", None)
    for prop in schema.get("properties", {}).values():
        prop.pop("title", None)
        variants = prop.get("anyOf")
        if isinstance(variants, list) and {"type": "null"} in variants and len(variants) == 2:
            del prop["anyOf"]
            prop.update(next(v for v in variants if v != {"type": "null"}))
        if "default" in prop and prop["default"] is None:
            del prop["default"]


class PathInput(BaseModel):
    """Base of the file tools' input models: strict fields, dash aliases, resolved path.

    ``validate_input`` (which has the session cwd) stores the real path it resolved, so
    ``permission_rule_content`` (which does not) can match rules against it.
    """

    model_config = ConfigDict(extra="forbid", populate_by_name=True, json_schema_extra=_tidy_schema)

    _resolved_path: str | None = PrivateAttr(default=None)


def stat_regular_file(path: Path) -> os.stat_result | None:
    """``path``'s stat when it is a regular file, ``None`` when it does not exist.

    Raises ``ToolError`` for directories, devices/FIFOs/sockets and access errors.
    """
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ToolError(f"Cannot access {path}: {exc.strerror}.") from exc
    if stat.S_ISDIR(info.st_mode):
        raise ToolError(f"{path} is a directory, not a file.")
    if not stat.S_ISREG(info.st_mode):
        raise ToolError(f"{path} is not a regular file (a device, FIFO or socket).")
    return info
