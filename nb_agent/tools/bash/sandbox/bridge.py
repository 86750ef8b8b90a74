"""Inside the sandbox: a loopback TCP listener that forwards each connection to nb_agent's
filtering proxy over a Unix socket, then ``exec`` of the command.

Run as ``python -S -I -c SOURCE SOCKET PORT -- argv...`` by bubblewrap. The sandbox has its
own network namespace with nothing but loopback, so the only way out is this listener,
which reaches only the proxy outside; ``HTTP(S)_PROXY`` point at it. The listener is
bound before the command starts (no race), served by a forked child, and dies with the
sandbox's PID namespace when the command ends. Standard library only: it starts with
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


def main(argv: list[str]) -> None:
    socket_path, port, separator, *command = argv
    assert separator == "--" and command, "usage: bridge.py SOCKET PORT -- COMMAND..."
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", int(port)))
    listener.listen(64)
    if os.fork() == 0:
        _serve(listener, socket_path)
        os._exit(0)
    listener.close()
    os.execvp(command[0], command)


if __name__ == "__main__":
    main(sys.argv[1:])
