"""Folder trust, the store: which folders the user has said may change the agent's behaviour.

The answer is kept per folder in the user's own configuration
(``~/.nb_agent/trusted_folders.json``, or the file ``$NB_AGENT_TRUST_FILE`` names; never
in the project) and covers the folder's subfolders (not for the home folder and the folders
above it: their trust is their own); the nearest answered folder wins. A folder nobody
answered for is not trusted. Answers for folders that no longer exist are
dropped when the file is next written (scratch directories come and go).

:mod:`nb_agent.folder_trust` decides from these answers what a folder's files may do.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from nb_agent.permissions.paths import home_directory

TRUST_FILE = Path(".nb_agent") / "trusted_folders.json"
TRUST_FILE_ENV = "NB_AGENT_TRUST_FILE"


def trust_file(home: Path | None = None) -> Path:
    """The store: ``home``'s when given, else ``$NB_AGENT_TRUST_FILE`` when it is an absolute
    path (a relative one would be read from whatever folder the kernel is in: the folder
    itself could ship the answers), else ``~/.nb_agent/…``."""
    moved = Path(os.path.expanduser(os.environ.get(TRUST_FILE_ENV, "")))
    if home is None and moved.is_absolute():
        return moved
    return (home or home_directory()) / TRUST_FILE


def _key(folder: Path) -> str:
    return os.path.realpath(os.path.expanduser(os.fspath(folder)))


def _load(home: Path | None) -> dict[str, bool]:
    try:
        data = json.loads(trust_file(home).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    folders = data.get("folders") if isinstance(data, dict) else None
    return {k: v for k, v in (folders or {}).items() if isinstance(k, str) and isinstance(v, bool)}


def trust_answer(folder: Path, *, home: Path | None = None) -> bool | None:
    """The recorded answer for ``folder`` or its nearest answered parent; None if none.

    Trusting the home folder or one above it (``/``, ``/home``) covers that folder only:
    Jupyter is often started in the home folder, and everything the user downloads or
    clones lives under it. A "don't trust" there still covers what is under it."""
    answers = _load(home)
    path = Path(_key(folder))
    broad = broad_folders(home)
    for candidate in (path, *path.parents):
        answer = answers.get(str(candidate))
        if answer is None or (answer and candidate != path and str(candidate) in broad):
            continue
        return answer
    return None


def broad_folders(home: Path | None = None) -> set[str]:
    """The home folder and the folders above it: a trust given there is not inherited."""
    real_home = Path(_key(home or home_directory()))
    return {str(real_home), *(str(p) for p in real_home.parents)}


def is_trusted(folder: Path, *, home: Path | None = None) -> bool:
    """Has the user trusted ``folder`` (or a folder above it, with no "don't trust" nearer)?"""
    return trust_answer(folder, home=home) is True


def set_trust(folder: Path, trusted: bool, *, home: Path | None = None) -> None:
    """Record the user's answer for ``folder`` (atomically, in the user's own config)."""
    answers = {k: v for k, v in _load(home).items() if os.path.isdir(k)}
    answers[_key(folder)] = trusted
    target = trust_file(home)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".trusted_folders.")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump({"folders": answers}, f, indent=1, sort_keys=True)
    os.replace(tmp, target)
