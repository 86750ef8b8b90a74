"""Can a sandbox start here? Checked once per process by actually starting one.

A binary on ``PATH`` is not enough: containers often forbid the namespaces bubblewrap
needs, and then every sandboxed command would fail. The probe runs ``true`` with the
same namespace options real commands use; its error is the reason shown to the user.
"""

from __future__ import annotations

import functools
import platform
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from nb_agent.executables import which
from nb_agent.tools.bash.sandbox.bwrap import bwrap_command
from nb_agent.tools.bash.sandbox.plan import SandboxPlan
from nb_agent.tools.bash.sandbox.seatbelt import SANDBOX_EXEC, seatbelt_command

__all__ = ["Backend", "SandboxAvailability", "probe_availability"]

Backend = Literal["bubblewrap", "seatbelt"]
_PROBE_TIMEOUT_S = 10.0
INSTALL_BWRAP = "sudo apt-get install bubblewrap  (Fedora: sudo dnf install bubblewrap; Arch: sudo pacman -S bubblewrap)"
_NAMESPACE_FIX = (
    "allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, user.max_user_namespaces>0; "
    "on Ubuntu 24.04+ kernel.apparmor_restrict_unprivileged_userns=0 or an AppArmor profile for bwrap); "
    "in Docker, run the container with --security-opt seccomp=unconfined --security-opt apparmor=unconfined"
)


@dataclass(frozen=True, kw_only=True)
class SandboxAvailability:
    """Whether commands can be sandboxed, with what, and if not why and how to fix it."""

    available: bool
    backend: Backend | None = None
    executable: str | None = None
    version: str = ""
    reason: str = ""
    fix: str = ""

    def describe(self) -> str:
        if self.available:
            return f"{self.backend} {self.version}".strip() + f" ({self.executable})"
        return f"unavailable: {self.reason}" + (f" — fix: {self.fix}" if self.fix else "")


@functools.lru_cache(maxsize=8)
def probe_availability(system: str | None = None, bwrap: str | None = None) -> SandboxAvailability:
    """Probe once per (system, binary); ``bwrap`` overrides the binary looked up on PATH."""
    system = system or platform.system()
    if system == "Linux":
        return _probe_bwrap(bwrap or which("bwrap"))
    if system == "Darwin":
        return _probe_seatbelt()
    return SandboxAvailability(available=False, reason=f"no sandbox for {system}", fix="run nb_agent on Linux (bubblewrap) or macOS")


def _probe_plan(tmp: Path) -> SandboxPlan:
    cwd_file = tmp / "cwd"
    cwd_file.touch()
    return SandboxPlan(cwd=tmp, writable=(tmp,), read_only=(), hidden=(), private_tmp=tmp, cwd_file=cwd_file)


def _run_probe(argv: list[str]) -> str | None:
    """None when the probe ran; otherwise the error."""
    try:
        done = subprocess.run(argv, capture_output=True, timeout=_PROBE_TIMEOUT_S, stdin=subprocess.DEVNULL, check=False)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"{type(exc).__name__}: {exc}"
    if done.returncode != 0:
        text = (done.stderr or done.stdout).decode("utf-8", "replace").strip()
        return text.splitlines()[-1] if text else f"exit code {done.returncode}"
    return None


def _probe_bwrap(executable: str | None) -> SandboxAvailability:
    if not executable or not Path(executable).exists():
        return SandboxAvailability(available=False, reason="bubblewrap (bwrap) is not installed", fix=INSTALL_BWRAP)
    version = _version([executable, "--version"])
    with tempfile.TemporaryDirectory(prefix="nb_agent-probe-") as tmp:
        error = _run_probe(bwrap_command(executable, _probe_plan(Path(tmp)), ["true"]))
    if error is not None:
        return SandboxAvailability(
            available=False, backend="bubblewrap", executable=executable, version=version,
            reason=f"bubblewrap cannot create its namespaces here ({error})", fix=_NAMESPACE_FIX,
        )  # fmt: skip
    return SandboxAvailability(available=True, backend="bubblewrap", executable=executable, version=version)


def _probe_seatbelt() -> SandboxAvailability:
    if not Path(SANDBOX_EXEC).exists():
        return SandboxAvailability(available=False, reason=f"{SANDBOX_EXEC} is missing", fix="it ships with macOS; check the system installation")
    with tempfile.TemporaryDirectory(prefix="nb_agent-probe-") as tmp:
        error = _run_probe(seatbelt_command(_probe_plan(Path(tmp)), ["/usr/bin/true"]))
    if error is not None:
        return SandboxAvailability(
            available=False, backend="seatbelt", executable=SANDBOX_EXEC,
            reason=f"sandbox-exec refused the profile ({error})", fix="nested sandboxes are not allowed: run the kernel outside another sandbox",
        )  # fmt: skip
    return SandboxAvailability(available=True, backend="seatbelt", executable=SANDBOX_EXEC, version="sandbox-exec")


def _version(argv: list[str]) -> str:
    try:
        out = subprocess.run(argv, capture_output=True, timeout=5, check=False).stdout
    except (OSError, subprocess.SubprocessError):
        return ""
    return out.decode("utf-8", "replace").strip().removeprefix("bubblewrap ").strip()
