"""Subagent transcripts: one JSONL per subagent next to its session's, marked as a sidechain.

``<sessions>/<session>/subagents/agent-<id>.jsonl``: every entry carries ``is_sidechain``,
the agent's id and the parent's tool_use id, so a reader (or a resumed session) can put
it under the Agent call that started it. The parent's own transcript gets a ``subagent``
entry at the start and at the end of each run naming the file.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nb_agent.transcript import Transcript, load_transcript

SUBAGENTS_DIR = "subagents"


def sidechain_path(session_dir: Path, agent_id: str) -> Path:
    return session_dir / SUBAGENTS_DIR / f"agent-{agent_id}.jsonl"


class SidechainTranscript(Transcript):
    """A :class:`Transcript` whose entries say whose sidechain they belong to."""

    def __init__(self, path: Path, *, session_id: str, agent_id: str, parent_tool_use_id: str, agent_type: str) -> None:
        super().__init__(path, session_id=session_id)
        self._marks = {
            "is_sidechain": True,
            "agent_id": agent_id,
            "agent_type": agent_type,
            "parent_tool_use_id": parent_tool_use_id,
        }

    def write_entry(self, kind: str, **payload: Any) -> None:
        super().write_entry(kind, **{**self._marks, **payload})


@dataclass(frozen=True, kw_only=True)
class LinkedSubagent:
    """A subagent a session's transcript names, and what its sidechain file holds."""

    agent_id: str
    agent_type: str
    parent_tool_use_id: str
    path: Path
    status: str
    messages: int


def linked_subagents(session_transcript: Path) -> list[LinkedSubagent]:
    """The subagents recorded in a session transcript (last status of each), whose
    sidechain files exist; works the same after the session was resumed."""
    loaded = load_transcript(session_transcript)
    latest: dict[str, dict[str, Any]] = {}
    for entry in loaded.entries_of("subagent"):
        latest[entry["agent_id"]] = entry
    out = []
    session_dir = session_transcript.with_suffix("")
    for agent_id, entry in latest.items():
        path = sidechain_path(session_dir, agent_id)
        if not path.exists():
            continue
        out.append(
            LinkedSubagent(
                agent_id=agent_id,
                agent_type=entry.get("agent_type", ""),
                parent_tool_use_id=entry.get("parent_tool_use_id", ""),
                path=path,
                status=entry.get("status", ""),
                messages=len(load_transcript(path).messages),
            )
        )
    return out
