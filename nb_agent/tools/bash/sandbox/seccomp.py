"""Linux: the seccomp filter that keeps sandboxed commands off Unix sockets.

Bubblewrap's mount and network namespaces do not stop a ``connect()`` to a Unix socket
that is visible in the filesystem (``/var/run/postgresql/.s.PGSQL.5432``, a Docker or
D-Bus socket): the sandbox's read-only view still lets a process connect to it, and the
service behind it acts outside the sandbox (PostgreSQL's ``COPY ... TO PROGRAM`` runs a
command as its user). As Claude Code's sandbox does, a seccomp filter makes
``socket(AF_UNIX, ...)`` fail with ``EPERM`` (seccomp cannot see a ``connect()``'s address,
so creating the socket is what is refused); ``socketpair()`` stays allowed (it reaches
nothing outside). ``io_uring`` is refused too: its ``IORING_OP_SOCKET`` / ``CONNECT``
operations create and connect sockets without the ``socket()`` system call.

The program is built by libseccomp (through ``pyseccomp``), which also refuses system calls
of another ABI (32-bit ``int 0x80`` with its ``socketcall()``, x32), so the filter cannot be
sidestepped by changing calling convention. Without libseccomp the filter is unavailable:
:func:`unix_socket_filter` says why, and the sandbox reports it (``%agent sandbox``).
"""

from __future__ import annotations

import errno
import functools
import os
import socket
import tempfile

__all__ = ["filter_fd", "unix_socket_filter"]

_REFUSED_CALLS = ("io_uring_setup", "io_uring_enter", "io_uring_register")


@functools.lru_cache(maxsize=1)
def unix_socket_filter() -> tuple[bytes | None, str]:
    """The BPF program (``struct sock_filter`` array, as ``bwrap --seccomp`` reads it), or
    None and the reason it cannot be built here."""
    try:
        import pyseccomp as seccomp
    except (ImportError, OSError) as exc:  # the module, or libseccomp.so.2 it loads
        return None, f"libseccomp is not available ({exc})"
    try:
        program = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
        program.add_rule(seccomp.ERRNO(errno.EPERM), "socket", seccomp.Arg(0, seccomp.EQ, socket.AF_UNIX))
        for name in _REFUSED_CALLS:
            program.add_rule(seccomp.ERRNO(errno.EPERM), name)
        with tempfile.TemporaryFile() as out:
            program.export_bpf(out)
            out.seek(0)
            return out.read(), ""
    except (OSError, RuntimeError, ValueError) as exc:
        return None, f"libseccomp could not build the filter ({exc})"


def filter_fd(program: bytes) -> int:
    """A read-only descriptor positioned at the start of ``program`` (a memfd), for
    ``bwrap --seccomp FD``; the caller passes it to the child and closes it."""
    fd = os.memfd_create("nb_agent-seccomp", os.MFD_CLOEXEC)
    try:
        os.write(fd, program)
        os.lseek(fd, 0, os.SEEK_SET)
    except OSError:
        os.close(fd)
        raise
    return fd
