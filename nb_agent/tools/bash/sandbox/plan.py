"""What one sandboxed command may touch, independent of the operating system's mechanism."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from nb_agent.tools.bash.sandbox.imports import ImportDirectory

NetworkMode = Literal["none", "proxy", "all"]


@dataclass(frozen=True, kw_only=True)
class ProxyEndpoint:
    """nb_agent's filtering proxy, reachable from inside the sandbox through a Unix socket."""

    socket_path: Path | None
    """Linux: the proxy's Unix socket, bound into the sandbox (None: the proxy is on ``port``)."""
    port: int
    """The loopback port ``HTTP(S)_PROXY`` point at: the in-sandbox bridge (Linux) or the proxy (macOS)."""


@dataclass(frozen=True, kw_only=True)
class SandboxPlan:
    """The limits of one sandboxed command. Every path is absolute and exists."""

    cwd: Path
    writable: tuple[Path, ...]
    """Directories writable inside (the working directories, ``allowWrite``)."""
    pinned: tuple[Path, ...] = ()
    """Writable directories bound onto themselves so they cannot be renamed away: a ``.git``
    whose hooks and config are read-only could otherwise be moved aside and replaced."""
    read_only: tuple[Path, ...]
    """Paths inside ``writable`` that stay read-only (git hooks, agent settings, ``denyWrite``)."""
    hidden: tuple[Path, ...]
    """Secrets: unreadable inside (home secrets, ``denyRead``, agent sockets)."""
    private_tmp: Path
    """Seen as ``/tmp`` (and ``$TMPDIR``) inside: the only writable temporary directory."""
    cwd_file: Path
    """The one file outside ``writable`` the shell may write: where it records its final directory."""
    absent_protected: tuple[Path, ...] = ()
    """Protected paths that do not exist yet: a mount cannot guard them without creating
    them, so one the command creates is moved aside when it exits (see :mod:`.guard`)."""
    home: Path | None = None
    home_visible: tuple[Path, ...] = ()
    """With ``home``: it is an empty read-only directory inside but for these paths (and
    the working directories in it); see :func:`.secrets.home_view`."""
    import_snapshot: tuple[ImportDirectory, ...] = ()
    """The kernel's import directories in ``writable`` before the command (see :mod:`.imports`)."""
    network: NetworkMode = "none"
    proxy: ProxyEndpoint | None = None
    allow_local_binding: bool = False
    block_unix_sockets: bool = True
    """Refuse ``socket(AF_UNIX)`` to the command (Linux: :mod:`.seccomp`)."""
