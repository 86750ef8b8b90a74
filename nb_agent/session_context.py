"""Per-session context (SPEC §6): memory (CLAUDE.md and the rest, :mod:`nb_agent.memory`)
as a user-side reminder, git status as system context (only in a trusted folder, and never
by running git). Both are computed once per session and cleared by new/compact; memory of
subfolders is added as the agent reads files there (:meth:`SessionContext.nested_memory`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import date
from pathlib import Path

from nb_agent.git.status import read_git_snapshot
from nb_agent.memory.files import MAX_MEMORY_FILE_CHARS, MemoryFile
from nb_agent.memory.loader import MemoryLoad, MemoryScope, load_memory
from nb_agent.memory.nested import nested_memory_for
from nb_agent.permissions.paths import home_directory

GIT_STATUS_MAX_CHARS = 2_000
MAX_INSTRUCTION_FILE_CHARS = MAX_MEMORY_FILE_CHARS

_CLAUDE_MD_HEADER = (
    "# claudeMd\nCodebase and user instructions are shown below. Be sure to adhere to these "
    "instructions. IMPORTANT: These instructions OVERRIDE any default behavior and you MUST "
    "follow them exactly as written."
)


def project_instructions_reminder(
    cwd: Path, *, home: Path | None = None, today: date | None = None, memory: MemoryLoad | None = None
) -> str:
    """The text of the user-side ``<system-reminder>`` (without the tags): the memory files
    (:mod:`nb_agent.memory`; ``memory`` as loaded, else loaded here for an untrusted
    folder) and today's date."""
    if memory is None:
        memory = load_memory(MemoryScope(cwd=cwd, home=home or home_directory()))
    sections = ["As you answer the user's questions, you can use the following context:"]
    if memory.files:
        sections.append(_CLAUDE_MD_HEADER)
        sections.extend(file.as_context() for file in memory.files)
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
    with nothing to trust); see :mod:`nb_agent.folder_trust`. The same answer decides
    whether a project memory file's imports from outside the folder are read."""
    read_denied: Callable[[Path], str | None] | None = None
    """The ``Read`` deny or ask rule covering a path: memory imports are held to it."""
    _memory: MemoryLoad | None = field(default=None, init=False)
    _reminder: str | None = field(default=None, init=False)
    _git: str | None = field(default=None, init=False)
    _git_loaded: bool = field(default=False, init=False)

    @property
    def memory_scope(self) -> MemoryScope:
        scope = MemoryScope(cwd=self.cwd, home=self.home or home_directory(), trusted=self.git_allowed)
        return scope if self.read_denied is None else replace(scope, read_denied=self.read_denied)

    @property
    def memory(self) -> MemoryLoad:
        """The memory files read for this conversation (and those skipped, with why)."""
        if self._memory is None:
            self._memory = load_memory(self.memory_scope)
        return self._memory

    def reminder(self) -> str:
        if self._reminder is None:
            self._reminder = project_instructions_reminder(self.cwd, home=self.home, memory=self.memory)
        return self._reminder

    def nested_memory(self, path: Path) -> list[MemoryFile]:
        """Memory the agent's first read of ``path`` brings (each file once a conversation)."""
        return nested_memory_for(self.memory, self.memory_scope, path)

    async def git_status(self) -> str | None:
        if not self._git_loaded:
            self._git = await git_status_context(self.cwd) if self.git_allowed else None
            self._git_loaded = True
        return self._git

    def clear(self) -> None:
        self._memory = None
        self._reminder = None
        self._git = None
        self._git_loaded = False
