"""Inside the sandbox: a loopback TCP listener that forwards each connection to nb_agent's
filtering proxy over a Unix socket, then ``exec`` of the command.

Run as ``python -S -I -c SOURCE SOCKET PORT SECCOMP_FD -- argv...`` by bubblewrap. The sandbox has its
own network namespace with nothing but loopback, so the only way out is this listener,
which reaches only the proxy outside; ``HTTP(S)_PROXY`` point at it. The listener is
bound before the command starts (no race), served by a forked child, and dies with the
sandbox's PID namespace when the command ends. The bridge needs a Unix socket (to the
proxy), so the command's seccomp filter (:mod:`.seccomp`, in descriptor ``SECCOMP_FD``, or
``-`` for none) is installed here, after the fork and just before ``exec``: the command is
filtered, the serving child is not, and that child makes itself non-dumpable so the command
cannot ptrace it or write its memory to borrow its sockets. Standard library only: it starts with
``-S -I`` (no site, no user paths) for speed and so the project cannot inject code into it.
"""

from __future__ import annotations

import os
import socket
import sys
import threading


def _pipe(src: socket.socket, dst: socket.socket) -> None:
    try:
        while data := src.recv(65536):
            dst.sendall(data)
    except OSError:
        pass
    finally:
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def _serve(listener: socket.socket, socket_path: str) -> None:
    while True:
        client, _ = listener.accept()
        upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            upstream.connect(socket_path)
        except OSError:
            client.close()
            upstream.close()
            continue
        threading.Thread(target=_pipe, args=(client, upstream), daemon=True).start()
        threading.Thread(target=_pipe, args=(upstream, client), daemon=True).start()


_PR_SET_DUMPABLE = 4
_PR_SET_SECCOMP = 22
_SECCOMP_MODE_FILTER = 2


def _prctl(*args: int | object) -> None:
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(*args) != 0:
        raise OSError(ctypes.get_errno(), "prctl failed")


def _install_filter(fd: int) -> None:
    """Load the ``struct sock_filter`` array in ``fd`` as this process's seccomp filter
    (bubblewrap already set ``no_new_privs``, which an unprivileged filter needs)."""
    import ctypes

    program = b""
    while chunk := os.read(fd, 65536):
        program += chunk
    os.close(fd)

    class SockFprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_char_p)]

    prog = SockFprog(len(program) // 8, program)  # 8 bytes per BPF instruction
    _prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0)


def main(argv: list[str]) -> None:
    socket_path, port, seccomp_fd, separator, *command = argv
    assert separator == "--" and command, "usage: bridge.py SOCKET PORT SECCOMP_FD|- -- COMMAND..."
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", int(port)))
    listener.listen(64)
    if os.fork() == 0:
        _prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)
        if seccomp_fd != "-":
            os.close(int(seccomp_fd))
        _serve(listener, socket_path)
        os._exit(0)
    listener.close()
    if seccomp_fd != "-":
        _install_filter(int(seccomp_fd))
    os.execvp(command[0], command)


if __name__ == "__main__":
    main(sys.argv[1:])
