"""What the user's code did to the namespace since the agent's last turn: variables added,
reassigned (or of another type now) and deleted, as a short attachment.

A fingerprint (name → type and object id) is taken when a run ends, after the agent's own
code; the next run compares the namespace with it. Bounded: a few names per kind, each line
cut. Values are described like the variables summary (type, shape, a DataFrame's columns).
"""

from __future__ import annotations

from typing import Any

from nb_agent.jupyter.bounded_list import bounded_list, cut_line
from nb_agent.jupyter.user_namespace import user_variables
from nb_agent.objects import describe_one_line, type_name

MAX_NAMES_PER_KIND = 10
MAX_LINE_CHARS = 160

Fingerprint = dict[str, tuple[str, int]]


def namespace_fingerprint(shell: Any) -> Fingerprint:
    """Each user variable's type name and object id."""
    return {name: (type_name(value), id(value)) for name, value in user_variables(shell)}


def _listed(title: str, entries: list[str]) -> list[str]:
    return bounded_list(title, [cut_line(entry, MAX_LINE_CHARS) for entry in entries], max_entries=MAX_NAMES_PER_KIND)


def namespace_changes(before: Fingerprint, shell: Any) -> str | None:
    """The user's changes to the namespace since ``before`` (``None`` when there are none)."""
    added, changed = [], []
    now = user_variables(shell)
    for name, value in now:
        previous = before.get(name)
        if previous is None:
            added.append(describe_one_line(name, value))
        elif previous[0] != type_name(value):
            changed.append(f"{describe_one_line(name, value)} (was {previous[0]})")
        elif previous[1] != id(value):
            changed.append(f"{describe_one_line(name, value)} (reassigned)")
    names = {name for name, _ in now}
    deleted = [name for name in before if name not in names]
    lines = _listed("New variables", added) + _listed("Changed variables", changed) + _listed("Deleted variables", deleted)
    if not lines:
        return None
    return "Since your last turn the user's code changed the kernel's variables:\n" + "\n".join(lines)
