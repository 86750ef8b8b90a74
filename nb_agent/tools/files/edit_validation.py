"""Edit's validation chain (seed 003 §3.6): fourteen checks, then the simulated result.

:func:`plan_edit` runs the checks in the seed's order and returns an :class:`EditPlan`
holding the file's new content, or raises :class:`ToolError` with the message the model
reads. Edit runs it twice: in ``validate_input`` (before the permission prompt, so the
user is not asked about an edit that cannot apply) and again in ``call`` (the file may
have changed while the user was deciding).

Steps with no counterpart here: ② team-memory secret scan (nb_agent has no team memory),
④ deny rules (the pipeline checks them before ``validate_input``, against ``permission_rule_content``), ⑤
UNC paths (``EditTool.validate_input`` skips all file access for them).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from nb_agent.errors import ToolError
from nb_agent.tools.base import ToolSession
from nb_agent.tools.files.encoding import DEFAULT_FORMAT, DecodedText, TextFormat, read_text_file
from nb_agent.tools.files.freshness import staleness_error
from nb_agent.tools.files.matching import find_edit_match
from nb_agent.tools.files.paths import expand_path, missing_file_message, stat_regular_file, state_key

MAX_EDIT_FILE_SIZE = 1 << 30
"""1 GiB: larger files are refused outright (reading them whole would exhaust memory)."""

SETTINGS_DIRS = frozenset({".nb_agent", ".claude"})
SETTINGS_NAMES = frozenset({"settings.json", "settings.local.json"})


@dataclass(frozen=True, kw_only=True)
class EditPlan:
    """A validated edit: where, what it replaces, and the file's content afterwards."""

    path: Path
    key: str
    exists: bool
    original: str
    """The file's content (``\\n`` endings) before the edit; ``""`` when it does not exist."""
    format: TextFormat
    old_string: str
    """The text replaced, as it is in the file (quotes may differ from the input's)."""
    new_string: str
    replace_all: bool
    occurrences: int
    updated: str


def plan_edit(*, file_path: str, old_string: str, new_string: str, replace_all: bool, session: ToolSession) -> EditPlan:
    """Run the validation chain; raise :class:`ToolError` at the first failed step."""
    # ① path expansion (~, relative to the session cwd, .. folded)
    path = expand_path(file_path, session.cwd)
    key = state_key(path)
    # The model sees \n line endings; a \r\n it copied from elsewhere means the same.
    old_string = old_string.replace("\r\n", "\n")
    new_string = new_string.replace("\r\n", "\n")
    # ③ no-op edit
    if old_string == new_string:
        raise ToolError("No changes to make: old_string and new_string are exactly the same.")
    # ⑥ size cap (and: a directory or a device is not an editable file)
    exists = _check_file_kind(path)
    # ⑦ read, detecting encoding and line endings
    decoded = _read(path) if exists else None
    original = decoded.text if decoded else ""
    fmt = decoded.format if decoded else DEFAULT_FORMAT
    # ⑧ existence semantics: "" creates a missing file or fills an empty one
    if not exists:
        if old_string != "":
            raise ToolError(missing_file_message(path, session.cwd))
        return _plan(path, key, False, "", fmt, "", new_string, replace_all, 1)
    if old_string == "":
        if original.strip() != "":
            raise ToolError("Cannot create new file - file already exists.")
        return _plan(path, key, True, original, fmt, "", new_string, replace_all, 1)
    # ⑨ notebooks have their own tool (cells, outputs, ids)
    if path.suffix.lower() == ".ipynb":
        raise ToolError("File is a Jupyter Notebook. Use the NotebookEdit tool to edit this file.")
    # ⑩ read first, in full view; ⑪ unchanged on disk since that read
    stale = staleness_error(session=session, key=key, path=path, current_text=original)
    if stale:
        raise ToolError(stale)
    # ⑫ find the string (exact, then quote-normalized, then desanitized)
    match = find_edit_match(original, old_string, new_string)
    if match is None:
        raise ToolError(_not_found_message(old_string, has_invalid_bytes=bool(decoded and decoded.has_invalid_bytes)))
    # ⑬ ambiguity
    occurrences = original.count(match.actual_old_string)
    if occurrences > 1 and not replace_all:
        raise ToolError(
            f"Found {occurrences} matches of the string to replace, but replace_all is false. "
            "To replace all occurrences, set replace_all to true. To replace only one occurrence, "
            f"please provide more context to uniquely identify the instance.\nString: {old_string}"
        )
    plan = _plan(path, key, True, original, fmt, match.actual_old_string, match.new_string, replace_all, occurrences)
    # ⑭ settings files must stay valid after the edit
    _check_settings_file(path, plan.updated)
    return plan


def apply_edit(content: str, old_string: str, new_string: str, *, replace_all: bool) -> str:
    """``content`` with the edit applied (``old_string`` as it is in the file)."""
    if old_string == "":
        return new_string
    if replace_all:
        return content.replace(old_string, new_string)
    index = content.find(old_string)
    end = index + len(old_string)
    # Deleting whole lines also deletes their newline, so no blank line is left behind.
    whole_lines = index == 0 or content[index - 1] == "\n"
    if new_string == "" and whole_lines and not old_string.endswith("\n") and content.startswith("\n", end):
        end += 1
    return content[:index] + new_string + content[end:]


def _plan(
    path: Path,
    key: str,
    exists: bool,
    original: str,
    fmt: TextFormat,
    old_string: str,
    new_string: str,
    replace_all: bool,
    occurrences: int,
) -> EditPlan:
    return EditPlan(
        path=path,
        key=key,
        exists=exists,
        original=original,
        format=fmt,
        old_string=old_string,
        new_string=new_string,
        replace_all=replace_all,
        occurrences=occurrences,
        updated=apply_edit(original, old_string, new_string, replace_all=replace_all),
    )


def _check_file_kind(path: Path) -> bool:
    """Whether ``path`` exists; refuse directories, devices and files over the size cap."""
    info = stat_regular_file(path)
    if info is None:
        return False
    if info.st_size > MAX_EDIT_FILE_SIZE:
        raise ToolError(
            f"File is too large to edit ({info.st_size / (1 << 30):.1f} GiB). The maximum editable file size is 1 GiB."
        )
    return True


def _read(path: Path) -> DecodedText:
    try:
        return read_text_file(path)
    except OSError as exc:
        raise ToolError(f"Cannot read {path}: {exc.strerror}.") from exc


def _not_found_message(old_string: str, *, has_invalid_bytes: bool) -> str:
    message = f"String to replace not found in file.\nString: {old_string}"
    if has_invalid_bytes:
        message += (
            "\nNote: the file contains bytes that are not valid UTF-8 (Read shows them as \ufffd); "
            "old_string cannot match across them."
        )
    return message


def _check_settings_file(path: Path, updated: str) -> None:
    """⑭: an agent settings file must still be a JSON object after the edit."""
    if path.name not in SETTINGS_NAMES or path.parent.name not in SETTINGS_DIRS:
        return
    try:
        value = json.loads(updated)
    except json.JSONDecodeError as exc:
        raise ToolError(f"The edit would make {path} invalid JSON ({exc.msg} at line {exc.lineno}).") from exc
    if not isinstance(value, dict):
        raise ToolError(f"The edit would make {path} something other than a JSON object.")
