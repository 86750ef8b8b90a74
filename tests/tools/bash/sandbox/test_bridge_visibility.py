"""The network bridge must start inside bubblewrap even when the checkout or the virtual
environment lives under /tmp, which the sandbox replaces with a private directory (a fresh
CI clone there once made every allow-listed fetch fail with ``execvp …/.venv/bin/python``)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from nb_agent.tools.bash.sandbox import bwrap


def test_the_bridge_runs_the_real_interpreter_with_its_source_inline(tmp_path: Path, monkeypatch) -> None:
    venv_python = tmp_path / "venv" / "bin" / "python"
    venv_python.parent.mkdir(parents=True)
    venv_python.symlink_to(os.path.realpath(sys.executable))
    monkeypatch.setattr(sys, "executable", str(venv_python))

    class Proxy:
        socket_path = Path("/run/proxy.sock")
        port = 3128

    class Plan:
        proxy = Proxy()

    prefix = bwrap.bridge_prefix(Plan())  # type: ignore[arg-type]
    assert prefix[0] == os.path.realpath(sys.executable) != str(venv_python)
    assert prefix[1:4] == ["-S", "-I", "-c"]
    assert "def main(argv" in prefix[4]  # the bridge's source, not a path that may be hidden
    assert prefix[5:] == ["/run/proxy.sock", "3128", "-", "--"]  # "-": no seccomp descriptor
