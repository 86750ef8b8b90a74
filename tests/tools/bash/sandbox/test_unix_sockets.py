"""Sandboxed commands cannot reach a service on a Unix socket outside the sandbox (issue 21
§4): a real listener on a socket in ``/var/tmp`` (visible in the sandbox's view, as
``/var/run/postgresql`` is), a classifier that calls everything read-only (so nothing
asks), and each way to reach it. The listener records every connection it accepts."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from nb_agent.tools.bash.sandbox.seccomp import unix_socket_filter

from .test_wrong_classifier_e2e import run_commands

pytestmark = pytest.mark.usefixtures("needs_sandbox")


class Listener:
    """A Unix stream server (and an abstract-namespace one) that records what reaches it."""

    def __init__(self) -> None:
        self.directory = Path("/var/tmp") / f"nb_agent-unix-{uuid.uuid4().hex[:12]}"
        self.directory.mkdir()
        self.path = str(self.directory / ".s.PGSQL.5432")  # where psql -h DIR looks
        self.abstract = f"\0nb_agent-test-{uuid.uuid4().hex[:12]}"
        self._received: list[bytes] = []
        self._arrived = threading.Condition()
        self._servers = []
        for address in (self.path, self.abstract):
            server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            server.bind(address)
            server.listen(8)
            server.settimeout(0.2)
            self._servers.append(server)
        self.datagram = str(self.directory / "log.sock")
        dgram = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        dgram.bind(self.datagram)
        dgram.settimeout(0.2)
        self._servers.append(dgram)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            for server in self._servers:
                try:
                    if server.type == socket.SOCK_DGRAM:
                        self._record(server.recv(1000))
                        continue
                    conn, _ = server.accept()
                except OSError:
                    continue
                with conn:
                    conn.settimeout(2)
                    try:
                        self._record(conn.recv(1000) or b"(connected)")
                    except OSError:
                        self._record(b"(connected)")

    def _record(self, data: bytes) -> None:
        with self._arrived:
            self._received.append(data)
            self._arrived.notify_all()

    @property
    def received(self) -> list[bytes]:
        """What reached the listener, once everything sent before this call has arrived:
        a sentinel goes to each socket after whatever came before it (backlogs are FIFO)."""
        sentinels = [b"sentinel-stream", b"sentinel-abstract", b"sentinel-dgram"]
        for address, data in ((self.path, sentinels[0]), (self.abstract, sentinels[1])):
            with socket.socket(socket.AF_UNIX) as client:
                client.connect(address)
                client.sendall(data)
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as client:
            client.sendto(sentinels[2], self.datagram)
        with self._arrived:
            # 30 s only separates "the server thread picked them up" from "it is stuck".
            assert self._arrived.wait_for(lambda: all(x in self._received for x in sentinels), timeout=30)
            found = [x for x in self._received if x not in sentinels]
            self._received[:] = found
        return found

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        for server in self._servers:
            server.close()
        shutil.rmtree(self.directory, ignore_errors=True)


@pytest.fixture
def listener() -> Iterator[Listener]:
    server = Listener()
    try:
        yield server
    finally:
        server.close()


def _python(code: str) -> str:
    return "python3 -c " + json.dumps(code)


def _reach_commands(listener: Listener) -> list[str]:
    stream = f"import socket; s = socket.socket(socket.AF_UNIX); s.connect({listener.path!r}); s.sendall(b'stream')"
    abstract = f"import socket; s = socket.socket(socket.AF_UNIX); s.connect({listener.abstract!r}); s.sendall(b'abstract')"
    dgram = f"import socket; s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); s.sendto(b'dgram', {listener.datagram!r})"
    raw = (  # socket(2) by number, as any language's FFI can
        "import ctypes, socket; libc = ctypes.CDLL(None, use_errno=True); fd = libc.syscall(41, 1, 1, 0); "
        f"s = socket.socket(fileno=fd); s.connect({listener.path!r}); s.sendall(b'raw')"
    )
    x32 = "import ctypes; ctypes.CDLL(None).syscall(0x40000000 | 41, 1, 1, 0)"  # the x32 ABI's socket
    io_uring = (  # io_uring's IORING_OP_SOCKET makes sockets without socket(2): setup must fail
        "import ctypes, sys; libc = ctypes.CDLL(None, use_errno=True); p = ctypes.create_string_buffer(120); "
        "sys.exit(0 if libc.syscall(425, 8, p) >= 0 else 3)"
    )
    commands = [_python(c) for c in (stream, abstract, dgram, raw, x32)] + [_python(io_uring)]
    commands.append(f"curl -s --max-time 5 --unix-socket {listener.path} http://localhost/curl")
    commands.append(f"psql -h {listener.directory} -p 5432 -U postgres -c 'select 1' postgres")
    return commands


def test_the_listener_is_reachable_outside_the_sandbox(listener: Listener) -> None:
    """The control: the same commands, unsandboxed, do reach it."""
    for command in _reach_commands(listener)[:4]:
        subprocess.run(["bash", "-c", command], capture_output=True, timeout=30)
    assert {b"stream", b"abstract", b"dgram", b"raw"} <= set(listener.received)


async def test_no_way_to_a_unix_socket_outside_the_sandbox(project: Path, home: Path, listener: Listener) -> None:
    assert unix_socket_filter()[0] is not None, unix_socket_filter()[1]
    outcomes = await run_commands(project, home, _reach_commands(listener))
    assert listener.received == [], (listener.received, outcomes)
    stream_text, stream_error = outcomes[0]
    assert stream_error and "Operation not permitted" in stream_text
    io_uring_text, io_uring_error = outcomes[5]
    assert io_uring_error and "Exit code 3" in io_uring_text, io_uring_text
    assert "ok" in (await run_commands(project, home, [_python("import socket; socket.socketpair(); print('ok')")]))[0][0]


async def test_through_the_proxy_bridge_too(project: Path, home: Path, listener: Listener) -> None:
    """With allowedDomains the in-sandbox bridge (which itself talks to the proxy over a
    Unix socket) installs the filter before it runs the command; its own serving process
    cannot be borrowed through ptrace."""
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"sandbox": {"network": {"allowedDomains": ["example.invalid"]}}}))
    steal = (  # PTRACE_SEIZE every process of the sandbox that is not this command's own
        "import ctypes, os; libc = ctypes.CDLL(None, use_errno=True); mine = {os.getpid(), os.getppid()}; "
        "pids = [int(p) for p in os.listdir('/proc') if p.isdigit() and int(p) not in mine]; "
        "print(len(pids), 'attached' if any(libc.ptrace(0x4206, p, 0, 0) == 0 for p in pids) else 'refused')"
    )
    outcomes = await run_commands(project, home, [*_reach_commands(listener)[:4], _python(steal), "echo $HTTPS_PROXY"])
    assert listener.received == [], (listener.received, outcomes)
    assert outcomes[4][0].split()[1:] == ["refused"] and int(outcomes[4][0].split()[0]) >= 1, outcomes[4]
    assert "http://127.0.0.1:" in outcomes[5][0]


async def test_allow_all_unix_sockets_lifts_the_block_from_user_settings_only(project: Path, home: Path, listener: Listener) -> None:
    command = _reach_commands(listener)[0]
    (project / ".claude").mkdir(exist_ok=True)
    (project / ".claude" / "settings.json").write_text(json.dumps({"sandbox": {"network": {"allowAllUnixSockets": True}}}))
    await run_commands(project, home, [command])
    assert listener.received == [], "a project's own settings cannot lift it"
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"sandbox": {"network": {"allowAllUnixSockets": True}}}))
    outcomes = await run_commands(project, home, [command])
    assert listener.received == [b"stream"], outcomes


def _int80_socketcall(tmp_path: Path) -> Path | None:
    """A 64-bit program that calls the 32-bit ABI (``int $0x80``: socketcall(SYS_SOCKET))."""
    source = tmp_path / "int80.c"
    source.write_text(
        "#include <stdio.h>\nstatic int args[3] = {1, 1, 0};\n"
        "int main(void) { long r; __asm__ volatile (\"int $0x80\" : \"=a\"(r) : \"a\"(102), \"b\"(1), \"c\"(args) : \"memory\");"
        " printf(\"fd %ld\\n\", r); return r < 0; }\n"
    )
    binary = tmp_path / "int80"
    if shutil.which("gcc") is None:
        return None
    done = subprocess.run(["gcc", "-no-pie", "-O0", "-o", str(binary), str(source)], capture_output=True)
    return binary if done.returncode == 0 else None


async def test_the_32_bit_abi_cannot_make_one_either(project: Path, home: Path, tmp_path: Path) -> None:
    binary = _int80_socketcall(tmp_path)
    if binary is None:
        pytest.skip("no C compiler to build the int 0x80 probe")
    outside = subprocess.run([str(binary)], capture_output=True, text=True)
    assert outside.stdout.startswith("fd ") and not outside.stdout.startswith("fd -"), outside  # it works outside
    program = project / "int80"
    shutil.copy(binary, program)
    (text, error), = await run_commands(project, home, [str(program)])
    assert error and "fd " not in text, text  # killed (SIGSYS) before it could print a descriptor
