"""Linux: a command line for bubblewrap (``bwrap``) that enforces a :class:`SandboxPlan`.

The whole filesystem is bound read-only at the same paths (so ``pwd``, git and every
absolute path look as outside), then the writable directories are bound read-write on
top, protected paths read-only again, and secrets covered: directories by an empty
``0000`` tmpfs, files by ``/dev/null`` on a ``nodev`` mount (opening it fails with EACCES).
A new PID namespace hides other processes (``/proc/<kernel>/environ`` holds the API key)
and ends every process of the command when it exits; a new network namespace has only
its own loopback. Capabilities are dropped, which matters when nb_agent runs as root:
root keeps them in bubblewrap by default and could remount ``/`` read-write.

bwrap is started as the leader of the command's process group and does not call
``setsid`` (no ``--new-session``): the group is the command's, so ``killpg`` still reaches
every process inside. stdin is /dev/null and there is no terminal, so the terminal
injection ``--new-session`` guards against does not apply.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path

from nb_agent.tools.bash.sandbox.plan import SandboxPlan

__all__ = ["bwrap_command", "bridge_prefix", "host_python", "python_under_tmp"]


def bwrap_command(bwrap: str, plan: SandboxPlan, argv: Sequence[str], *, seccomp_fd: int | None = None) -> list[str]:
    """``bwrap [options] -- argv`` for ``plan``; ``seccomp_fd`` (an inherited descriptor
    holding :mod:`.seccomp`'s program) keeps the command off Unix sockets. With the proxy
    bridge, which itself needs a Unix socket to reach the proxy, the bridge installs the
    filter just before it runs the command instead of bubblewrap."""
    # --as-pid-1: no bubblewrap reaper inside. That reaper runs without the seccomp filter and
    # is ptrace-able by the command (same user): it could be made to open a Unix socket.
    args = [bwrap, "--die-with-parent", "--unshare-pid", "--as-pid-1", "--unshare-ipc", "--unshare-uts", "--cap-drop", "ALL"]
    if plan.network != "all":
        args.append("--unshare-net")
    args += ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    args += ["--bind", str(plan.private_tmp), "/tmp"]
    for path in python_under_tmp():
        args += ["--ro-bind", path, path]
    home = plan.home if plan.home is not None and _visible(plan, [plan.home]) else None
    if home is not None:  # the home directory as Read sees it: only what the plan shows of it
        args += ["--tmpfs", str(home)]
        for path in plan.home_visible:
            args += ["--ro-bind", str(path), str(path)]
    for directory in plan.writable:
        args += ["--bind", str(directory), str(directory)]
    for directory in _visible(plan, plan.pinned):
        args += ["--bind", str(directory), str(directory)]
    for path in _visible(plan, plan.read_only):
        args += ["--ro-bind", str(path), str(path)]
    for path in _outermost(_visible(plan, plan.hidden)):
        if os.path.isdir(path):
            args += ["--perms", "0000", "--tmpfs", str(path)]
        else:
            args += ["--ro-bind", "/dev/null", str(path)]
    if plan.proxy is not None and plan.proxy.socket_path is not None:
        socket = str(plan.proxy.socket_path)
        args += ["--ro-bind", socket, socket]
    args += ["--bind", str(plan.cwd_file), str(plan.cwd_file)]
    if home is not None:
        args += ["--remount-ro", str(home)]  # after the mount points above were made in it
    bridge = bridge_prefix(plan, seccomp_fd=seccomp_fd)
    if seccomp_fd is not None and not bridge:
        args += ["--seccomp", str(seccomp_fd)]
    args += ["--chdir", str(plan.cwd), "--"]
    return args + bridge + list(argv)


def python_under_tmp() -> list[str]:
    """The kernel's Python where it lives under ``/tmp`` (its environment, its base
    installation and the folders it imports from), read-only: the command's private ``/tmp``
    would hide them, and commands run that Python (the proxy's bridge, the reproducibility
    check's fresh kernel, ``python`` from a venv a checkout under ``/tmp`` made)."""
    tmp = Path("/tmp")
    candidates = [sys.prefix, sys.base_prefix, sys.exec_prefix, *(p for p in sys.path if os.path.isabs(p))]
    found = {Path(p) for p in candidates if _under(Path(p), tmp) and Path(p) != tmp and os.path.isdir(p)}
    return [str(p) for p in sorted(found) if not any(q != p and _under(p, q) for q in found)]


def _visible(plan: SandboxPlan, paths: Sequence[Path]) -> list[Path]:
    """Paths that exist inside: ``/tmp`` is the private one, so host paths under it are
    absent unless a writable directory or the kernel's Python brings them in (mounting
    elsewhere there would create them)."""
    tmp = Path("/tmp")
    brought_in = [*plan.writable, *map(Path, python_under_tmp())]
    return [p for p in paths if not _under(p, tmp) or any(_under(p, d) for d in brought_in)]


def _outermost(paths: Sequence[Path]) -> list[Path]:
    """Drop paths inside another hidden directory (no mount point can be made in it)."""
    return [p for p in paths if not any(q != p and _under(p, q) and os.path.isdir(q) for q in paths)]


def _under(path: Path, directory: Path) -> bool:
    return path == directory or directory in path.parents


def bridge_prefix(plan: SandboxPlan, *, seccomp_fd: int | None = None) -> list[str]:
    """With the filtering proxy: start the in-sandbox bridge first (it execs ``argv``,
    after installing the filter in ``seccomp_fd`` when given).

    The bridge's source goes in with ``-c`` and the interpreter is the real one behind a
    virtual environment's link: a checkout or venv under ``/tmp`` is not visible inside,
    where ``/tmp`` is the command's private one. ``-S -I``: the bridge needs only the stdlib.
    """
    if plan.proxy is None or plan.proxy.socket_path is None:
        return []
    source = Path(__file__).with_name("bridge.py").read_text(encoding="utf-8")
    fd = "-" if seccomp_fd is None else str(seccomp_fd)
    return [host_python(), "-S", "-I", "-c", source, str(plan.proxy.socket_path), str(plan.proxy.port), fd, "--"]


def host_python() -> str:
    """This interpreter's real path (not a venv's symlink to it)."""
    return os.path.realpath(sys.executable)
