"""Folder trust, the decision: may this folder's own files change what the agent does?

A folder the user merely opened can carry files that would otherwise act on their own:
``.claude/settings.json`` / ``.claude/settings.local.json`` (hooks run commands, allow
rules and ``defaultMode`` loosen permissions, ``additionalDirectories`` widen where
writes are free), ``.mcp.json`` (server commands are started), ``.claude/agents/``
(prompts and modes for subagents), ``.claude/skills/`` and ``.claude/commands/`` (prompts
with tool lists), memory files importing files from outside the folder (Claude Code asks
before it follows those) and a git repository (its configuration can make ``git status``
run a command). :func:`folder_trust` says whether the folder has any
of these (:attr:`FolderTrust.reasons`) and what the user answered for it (the store,
:mod:`nb_agent.trust`). Until the answer is "trust", :func:`nb_agent.agent.create_engine`
uses none of them except the project's deny and ask rules (they only tighten), and
runs no git.

Files under ``~/.claude`` are the user's own (a session started in the home directory
reads them as project files): they never need trust.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from nb_agent.config_text import read_config_text
from nb_agent.git.discovery import discover_repository
from nb_agent.memory.loader import MemoryScope, load_memory, outside_imports
from nb_agent.permissions.paths import home_directory
from nb_agent.permissions.settings import is_users_own, untrusted_settings_keys
from nb_agent.skills.loader import COMMANDS_DIR, SKILLS_DIR, has_entries
from nb_agent.trust import trust_answer
from nb_agent.wording import plural

__all__ = ["FolderTrust", "TrustState", "folder_trust", "trust_reasons"]

TrustState = Literal["trusted", "declined", "unanswered", "not_needed"]
"""``not_needed``: nothing in the folder would change the agent's behaviour; ``declined``:
the user answered "Don't trust"; ``unanswered``: nobody answered (treated as untrusted)."""

SETTINGS_FILES = ("settings.json", "settings.local.json")
PROJECT_MCP_FILE = ".mcp.json"
AGENTS_DIR = Path(".claude") / "agents"


@dataclass(frozen=True, kw_only=True)
class FolderTrust:
    """A folder, what in it would need trust, and the user's answer."""

    folder: Path
    state: TrustState
    reasons: tuple[str, ...] = field(default=())
    """What in the folder would change the agent's behaviour (empty: ``not_needed``)."""

    @property
    def applies(self) -> bool:
        """May the folder's files take effect (hooks, allow rules, mode, MCP, agents, git)?"""
        return self.state in ("trusted", "not_needed")

    def describe(self) -> str:
        """One line for ``%agent status``."""
        if self.state == "not_needed":
            return f"not needed — nothing in {self.folder} changes what the agent does"
        what = "; ".join(self.reasons)
        if self.state == "trusted":
            return f"trusted — {self.folder} ({what})"
        said = "you answered Don't trust" if self.state == "declined" else "not answered yet"
        return f"not trusted ({said}) — {self.folder}: {what} not used (its deny and ask rules still apply); %agent trust to trust it"


def folder_trust(folder: Path, *, home: Path | None = None) -> FolderTrust:
    """The trust state of ``folder`` for a session started there."""
    folder = Path(os.path.abspath(folder))
    reasons = trust_reasons(folder, home=home)
    if not reasons:
        return FolderTrust(folder=folder, state="not_needed")
    answer = trust_answer(folder, home=home)
    state: TrustState = "unanswered" if answer is None else "trusted" if answer else "declined"
    return FolderTrust(folder=folder, state=state, reasons=tuple(reasons))


def trust_reasons(folder: Path, *, home: Path | None = None) -> list[str]:
    """What in ``folder`` would change the agent's behaviour, one phrase each."""
    reasons: list[str] = []
    for name in SETTINGS_FILES:
        path = folder / ".claude" / name
        if is_users_own(path, home=home):
            continue
        keys = untrusted_settings_keys(_read_object(path))
        if keys:
            reasons.append(f".claude/{name} ({', '.join(keys)})")
    servers = _read_object(folder / PROJECT_MCP_FILE).get("mcpServers")
    if isinstance(servers, dict) and servers:
        reasons.append(f"{PROJECT_MCP_FILE} ({plural(len(servers), 'MCP server')})")
    agents = folder / AGENTS_DIR
    if not is_users_own(agents, home=home) and _has_markdown(agents):
        reasons.append(".claude/agents (subagent definitions)")
    for directory, what in ((SKILLS_DIR, "skills"), (COMMANDS_DIR, "custom commands")):
        if not is_users_own(folder / directory, home=home) and has_entries(folder / directory):
            reasons.append(f"{directory.as_posix()} ({what})")
    waiting = outside_imports(load_memory(MemoryScope(cwd=folder, home=home or home_directory(), managed_file=None)))
    if waiting:
        names = ", ".join(dict.fromkeys(str(s.path) for s in waiting))
        reasons.append(f"memory imports from outside the folder ({names})")
    repository = _git_repository(folder)
    if repository is not None:
        reasons.append(f"a git repository ({repository})")
    return reasons


def _read_object(path: Path) -> dict[str, Any]:
    """The file's JSON object; ``{}`` when missing or unusable (the loaders skip it then too)."""
    try:
        data = json.loads(read_config_text(path))
    except (OSError, UnicodeDecodeError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _has_markdown(directory: Path) -> bool:
    try:
        return any(entry.name.endswith(".md") for entry in os.scandir(directory))
    except OSError:
        return False


def _git_repository(folder: Path) -> Path | None:
    found = discover_repository(folder)
    if found is None:
        return None
    return found.work_tree or found.git_dir
