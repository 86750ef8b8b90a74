"""Per-session context (SPEC §6): project instructions as a user-side reminder, git status
as system context (only in a trusted folder, and never by running git). Both are computed
once per session and cleared by new/compact."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from nb_agent.git.status import read_git_snapshot

INSTRUCTION_FILE_NAMES = ("CLAUDE.md", "AGENTS.md")
GIT_STATUS_MAX_CHARS = 2_000
MAX_INSTRUCTION_FILE_CHARS = 40_000


def find_instruction_files(cwd: Path, *, home: Path | None = None) -> list[Path]:
    """``~/.claude/CLAUDE.md`` first, then CLAUDE.md / AGENTS.md from the root down to cwd
    (so the nearest file comes last and wins where instructions conflict)."""
    home = home or Path.home()
    found: list[Path] = []
    user_file = home / ".claude" / "CLAUDE.md"
    if user_file.is_file():
        found.append(user_file)
    chain = [cwd, *cwd.parents]
    for directory in reversed(chain):
        for name in INSTRUCTION_FILE_NAMES:
            candidate = directory / name
            if candidate.is_file() and candidate not in found:
                found.append(candidate)
    return found


def _links_outside(path: Path) -> bool:
    """Is ``path`` a link to a file outside the folder it is in? A folder's CLAUDE.md is read
    before anyone trusts the folder and sent to the model without asking: a link to
    ``~/.ssh/id_rsa`` would put the key in the conversation. (``CLAUDE.md -> AGENTS.md``,
    within the folder, is common and fine.)"""
    folder = os.path.realpath(path.parent)
    return not os.path.realpath(path).startswith(folder.rstrip(os.sep) + os.sep)


def _read_instructions(path: Path, *, users_own: bool = False) -> str:
    if not users_own and _links_outside(path):
        return f"(not read: it is a link to a file outside {path.parent})"
    try:
        with path.open(encoding="utf-8", errors="replace") as file:
            text = file.read(MAX_INSTRUCTION_FILE_CHARS + 1)
    except OSError as exc:
        return f"(could not read: {exc.strerror})"
    if len(text) > MAX_INSTRUCTION_FILE_CHARS:
        text = text[:MAX_INSTRUCTION_FILE_CHARS] + "\n…(truncated)"
    return text


def project_instructions_reminder(cwd: Path, *, home: Path | None = None, today: date | None = None) -> str:
    """The text of the user-side ``<system-reminder>`` (without the tags)."""
    sections = ["As you answer the user's questions, you can use the following context:"]
    files = find_instruction_files(cwd, home=home)
    if files:
        sections.append(
            "# claudeMd\nCodebase and user instructions are shown below. Be sure to adhere to these "
            "instructions. IMPORTANT: These instructions OVERRIDE any default behavior and you MUST "
            "follow them exactly as written."
        )
        user_file = (home or Path.home()) / ".claude" / "CLAUDE.md"
        for path in files:
            users_own = path == user_file
            kind = "user's private global instructions" if users_own else "project instructions"
            sections.append(f"Contents of {path} ({kind}):\n\n{_read_instructions(path, users_own=users_own)}")
    sections.append(f"# currentDate\nToday's date is {(today or date.today()).isoformat()}.")
    sections.append(
        "IMPORTANT: this context may or may not be relevant to your tasks. You should not respond "
        "to this context unless it is highly relevant to your task."
    )
    return "\n\n".join(sections)


async def git_status_context(cwd: Path) -> str | None:
    """Branch, main branch, ``status --short`` (truncated) and the last 5 commits, read
    through libgit2 (:mod:`nb_agent.git.status`: nothing the repository configures runs);
    None outside a git work tree."""
    snapshot = await read_git_snapshot(cwd)
    if snapshot is None:
        return None
    status = "\n".join(snapshot.status) or "(clean)"
    if len(status) > GIT_STATUS_MAX_CHARS:
        status = status[:GIT_STATUS_MAX_CHARS] + (
            '\n... (truncated because it exceeds 2k characters. If you need more information, run "git status" using Bash)'
        )
    log = "\n".join(snapshot.recent_commits)
    return (
        "This is the git status at the start of the conversation. Note that this status is a snapshot in time, "
        "and will not update during the conversation.\n"
        f"Current branch: {snapshot.branch or '(detached)'}\n\nMain branch (you will usually use this for PRs): {snapshot.main_branch}\n\n"
        f"Status:\n{status}\n\nRecent commits:\n{log or '(none)'}"
    )


@dataclass(kw_only=True)
class SessionContext:
    """Memoized per-session context; ``clear()`` on new conversation or compaction."""

    cwd: Path
    home: Path | None = None
    git_allowed: bool = False
    """Whether the git status may be read at all: only in a folder the user trusts (or one
    with nothing to trust); see :mod:`nb_agent.folder_trust`."""
    _reminder: str | None = field(default=None, init=False)
    _git: str | None = field(default=None, init=False)
    _git_loaded: bool = field(default=False, init=False)

    def reminder(self) -> str:
        if self._reminder is None:
            self._reminder = project_instructions_reminder(self.cwd, home=self.home)
        return self._reminder

    async def git_status(self) -> str | None:
        if not self._git_loaded:
            self._git = await git_status_context(self.cwd) if self.git_allowed else None
            self._git_loaded = True
        return self._git

    def clear(self) -> None:
        self._reminder = None
        self._git = None
        self._git_loaded = False
