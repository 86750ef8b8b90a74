"""macOS: a Seatbelt profile for ``sandbox-exec`` that enforces a :class:`SandboxPlan`.

Written from Apple's sandbox profile language (SBPL) as used by ``sandbox-exec -p``.
**Untested on macOS**: nb_agent's CI runs on Linux; only the profile text is checked there.

The profile allows by default and then denies: every file write outside the writable
directories, reads of the secrets, writes to the protected paths, and the network (all
of it, or all but localhost binding). Later rules win in SBPL, so the denials come after
the allowances they narrow. Unlike bubblewrap there is no PID or network namespace:
other processes of the same user stay visible to ``ps``, and ``/tmp`` is not remapped
(``$TMPDIR`` points at the private directory instead).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from nb_agent.tools.bash.sandbox.plan import SandboxPlan

__all__ = ["SANDBOX_EXEC", "seatbelt_command", "seatbelt_profile"]

SANDBOX_EXEC = "/usr/bin/sandbox-exec"
_DEVICE_WRITES = ("/dev/null", "/dev/zero", "/dev/tty", "/dev/dtracehelper", "/dev/stdout", "/dev/stderr")


def _quote(path: Path | str) -> str:
    text = str(path).replace("\\", "\\\\").replace('"', '\\"')
    return f'"{text}"'


def _subpaths(paths: Sequence[Path]) -> str:
    return " ".join(f"(subpath {_quote(p)})" for p in paths)


def seatbelt_profile(plan: SandboxPlan) -> str:
    """The SBPL profile for ``plan``."""
    writable = [*plan.writable, plan.private_tmp]
    lines = [
        "(version 1)",
        "(allow default)",
        # Writes: nowhere but the working directories, the private tmp, the cwd file, devices.
        "(deny file-write*)",
        f"(allow file-write* {_subpaths(writable)} (literal {_quote(plan.cwd_file)}))",
        "(allow file-write* " + " ".join(f"(literal {_quote(d)})" for d in _DEVICE_WRITES) + ' (regex #"^/dev/fd/"))',
    ]
    if plan.read_only:
        lines.append(f"(deny file-write* {_subpaths(plan.read_only)})")
    if plan.hidden:
        lines.append(f"(deny file-read* file-write* {_subpaths(plan.hidden)})")
    # The keychain is reached over Mach IPC, not files.
    lines.append('(deny mach-lookup (global-name "com.apple.SecurityServer") (global-name "com.apple.securityd"))')
    if plan.network != "all":
        lines.append("(deny network*)")
        if plan.allow_local_binding:
            lines.append('(allow network-bind network-inbound (local ip "localhost:*"))')
            lines.append('(allow network-outbound (remote ip "localhost:*"))')
        if plan.proxy is not None:
            lines.append(f'(allow network-outbound (remote ip "localhost:{plan.proxy.port}"))')
    return "\n".join(lines) + "\n"


def seatbelt_command(plan: SandboxPlan, argv: Sequence[str], *, sandbox_exec: str = SANDBOX_EXEC) -> list[str]:
    """``sandbox-exec -p PROFILE argv``."""
    return [sandbox_exec, "-p", seatbelt_profile(plan), *argv]
